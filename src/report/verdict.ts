import {
  type CellStatistics,
  type CurveAnalysis,
  minimumEffectShare,
  type SizeStanding,
} from "../results/analysis.js";
import { quotaShare } from "../results/bottleneck.js";
import { intervalMinimumRepetitions } from "../results/median-interval.js";
import { median } from "../results/statistics.js";
import { burstRateText, burstSecondsText } from "./burst-text.js";
import type { ReportModel } from "./report-model.js";
import { spreadMinimumRepetitions } from "./statistics-display.js";
import { formatMbps, formatNumber, formatPercentNear } from "./units.js";

/** Burst rates within this ratio of each other read as one burst ("at every size"). */
const burstSameRatio = 1.15;
/** A burst shorter than two 250 ms intervals gets no rate in the verdict. */
const briefBurstSeconds = 0.5;
/** Burst lengths within this many seconds of each other read as one length. */
const burstSameSeconds = 0.3;

/** One memory size of a verdict: the median sustained rate (bit/s) and how far to trust it. */
export interface VerdictPoint {
  memoryMb: number;
  /** Median sustained rate; null when the size was measured but has none (see missingReason). */
  sustainedBitsPerSecond: number | null;
  /** Repetitions behind the median sustained rate (0 when none). */
  n: number;
  quotaPercent: number | null;
  /** A ceiling was known to check the sustained rate against; false: the rate is unconfirmed. */
  ceilingKnown: boolean;
  cpuBound: boolean | null;
  /** Against the plateau (analysis.ts): plateau, reaches, below, untold; null without a sustained rate. */
  standing: SizeStanding | null;
  /** Why there is no sustained rate at this size ("too short", "not settled"); null when there is one. */
  missingReason: string | null;
}

export interface VerdictBurst {
  /** Range of the per-size median burst peaks, bit/s (lower bounds when `peakBound` is at-least). */
  minBitsPerSecond: number;
  maxBitsPerSecond: number;
  medianBitsPerSecond: number;
  /** Range of the per-size median burst lengths, seconds. */
  minSeconds: number;
  maxSeconds: number;
  medianSeconds: number;
  /** Median bytes above the sustained rate over the sizes. */
  medianBytes: number;
  /** at-least: no size's samples resolved the peak; at-most: nor its length (results/burst-figures.ts). */
  peakBound: "measured" | "at-least";
  secondsBound: "measured" | "at-most";
  /** The longest sampling interval among the sizes, seconds. */
  intervalSeconds: number;
  /** Sizes where a burst was detected. */
  memoryMb: number[];
  /** Every size with a measurement had a burst. */
  atEverySize: boolean;
}

/**
 * The answer for one target and probe family, in one line: which memory gives what sustained rate,
 * and the burst. The fields behind `text` are there for JSON and the HTML page.
 */
export interface Verdict {
  targetKey: string;
  target: string;
  arch: string;
  /** "iperf3 upload", "S3 GET", "S3 GET single stream" ... (probe-names.ts). */
  probeFamily: string;
  /** The variant the line is about: the one with the highest sustained plateau in its family. */
  probeKey: string;
  probeLabel: string;
  /**
   * rising: smaller sizes are below the plateau beyond noise; flat: the smallest size already
   * reaches it; untold: the knee cannot be told (n < 3, a CPU-bound plateau; see kneeUnknownReason);
   * single: one size with a sustained rate; no-sustained: measured, but no transfer outlasted its
   * burst; no-data: nothing succeeded.
   */
  shape: "rising" | "flat" | "untold" | "single" | "no-sustained" | "no-data";
  /** What the line leads with: the knee (smallest size at the plateau); null when it cannot be told. */
  leadMemoryMb: number | null;
  /** Why the knee cannot be told (shape untold); null otherwise. */
  kneeUnknownReason: string | null;
  sustainedByMemoryMb: VerdictPoint[];
  burst: VerdictBurst | null;
  /** "detected" somewhere, "none" (samples show no burst), or "undetermined" (too short to tell). */
  burstSeen: "detected" | "none" | "undetermined";
  /** Smallest n behind any printed sustained rate (0 when none is printed). */
  fewestRepetitions: number;
  /** The sentence: one rate per number, each named. */
  text: string;
}

/** One verdict per target x architecture x probe family, in the order of the targets and the plan. Pure. */
export function buildVerdicts(model: ReportModel): Verdict[] {
  const multiArch = new Set(model.analysis.curves.map((c) => c.arch)).size > 1;
  const groups = new Map<string, CurveAnalysis[]>();
  for (const curve of model.analysis.curves) {
    const family = familyOf(model, curve);
    const key = `${curve.targetKey}|${curve.arch}|${family}`;
    groups.set(key, [...(groups.get(key) ?? []), curve]);
  }
  const targetOrder = model.targets.map((t) => t.key);
  return [...groups.values()]
    .map((curves) => verdictOf(model, curves, multiArch))
    .sort((a, b) => targetOrder.indexOf(a.targetKey) - targetOrder.indexOf(b.targetKey));
}

function familyOf(model: ReportModel, curve: CurveAnalysis): string {
  const names = model.probeNames?.[curve.probeKey];
  if (names) return names.family;
  // a model built without probe names (an older caller): the label is its own family
  return curve.probeLabel;
}

function shortOf(model: ReportModel, curve: CurveAnalysis): string {
  return model.probeNames?.[curve.probeKey]?.short ?? curve.probeLabel;
}

function verdictOf(model: ReportModel, curves: CurveAnalysis[], multiArch: boolean): Verdict {
  const lead = curves.reduce((best, c) =>
    (c.plateauBitsPerSecond ?? -1) > (best.plateauBitsPerSecond ?? -1) ? c : best,
  );
  const cells = model.analysis.cells
    .filter((c) => c.targetKey === lead.targetKey && c.arch === lead.arch && c.probeKey === lead.probeKey)
    .sort((a, b) => a.memoryMb - b.memoryMb);
  const points = cells.filter((c) => c.effective !== null).map(pointOf);
  const family = familyOf(model, lead);
  const variant = curves.length > 1 ? ` (best variant: ${shortOf(model, lead)})` : "";
  const name = `${lead.target}${multiArch ? ` ${lead.arch}` : ""} ${family}${variant}`;
  const burst = burstOf(cells);
  const burstSeen = burst
    ? "detected"
    : cells.some((c) => c.burstFound.none > 0) && cells.every((c) => c.burstFound.undetermined === 0)
      ? "none"
      : "undetermined";
  const withRate = points.filter((p) => p.sustainedBitsPerSecond !== null);
  const standings = new Map(lead.points.map((p) => [p.memoryMb, p.standing]));
  for (const p of withRate) p.standing = standings.get(p.memoryMb) ?? null;
  const shape = shapeOf(points, withRate, lead);
  const base = {
    targetKey: lead.targetKey,
    target: lead.target,
    arch: lead.arch,
    probeFamily: family,
    probeKey: lead.probeKey,
    probeLabel: lead.probeLabel,
    shape,
    leadMemoryMb: lead.kneeMemoryMb,
    kneeUnknownReason: shape === "untold" ? lead.kneeUnknownReason : null,
    sustainedByMemoryMb: points,
    burst,
    burstSeen,
    fewestRepetitions: withRate.length > 0 ? Math.min(...withRate.map((p) => p.n)) : 0,
  } satisfies Omit<Verdict, "text">;
  return { ...base, text: `${name}: ${sentence(base)}` };
}

function pointOf(cell: CellStatistics): VerdictPoint {
  return {
    memoryMb: cell.memoryMb,
    sustainedBitsPerSecond: cell.sustained?.median ?? null,
    n: cell.sustained?.n ?? 0,
    quotaPercent: cell.quotaPercent,
    ceilingKnown: cell.ceiling !== null,
    cpuBound: cell.cpuBound,
    standing: null,
    missingReason: cell.sustained ? null : missingReason(cell),
  };
}

/** The short reason a measured cell has no sustained rate. */
export function missingReason(cell: CellStatistics): string {
  const inside = cell.insideBurst;
  if (inside.repetitions > 0 && inside.excessBytes && inside.seconds)
    return `ended inside the burst: ${formatNumber(inside.excessBytes.median / 1e6)} MB above the quota in ${formatNumber(inside.seconds.median, 1)} s`;
  const reason = cell.sustainedNullReasons[0] ?? "";
  if (reason.startsWith("too short")) return "too short";
  if (reason.includes("did not settle")) return "not settled";
  return "no samples";
}

function shapeOf(points: VerdictPoint[], withRate: VerdictPoint[], lead: CurveAnalysis): Verdict["shape"] {
  if (points.length === 0) return "no-data";
  if (withRate.length === 0) return "no-sustained";
  if (withRate.length === 1) return "single";
  if (lead.kneeMemoryMb === null) return "untold";
  // flat: the smallest size is already at the plateau and no size is below it beyond noise
  return lead.kneeMemoryMb === (withRate[0] as VerdictPoint).memoryMb &&
    withRate.every((p) => p.standing !== "below")
    ? "flat"
    : "rising";
}

function burstOf(cells: CellStatistics[]): VerdictBurst | null {
  const measured = cells.filter((c) => c.effective !== null);
  const all = measured.filter((c) => c.burst !== null && c.burstSeconds !== null && c.burstBounds !== null);
  if (all.length === 0) return null;
  // sizes whose samples resolved the figure speak for it; bounds only where none did
  const resolvedPeaks = all.filter((c) => c.burstBounds?.peak === "measured");
  const resolvedLengths = all.filter((c) => c.burstBounds?.seconds === "measured");
  const rates = (resolvedPeaks.length > 0 ? resolvedPeaks : all).map((c) => c.burst?.median as number);
  const seconds = (resolvedLengths.length > 0 ? resolvedLengths : all).map(
    (c) => c.burstSeconds?.median as number,
  );
  const bursting = all;
  return {
    minBitsPerSecond: Math.min(...rates),
    maxBitsPerSecond: Math.max(...rates),
    medianBitsPerSecond: median(rates),
    minSeconds: Math.min(...seconds),
    maxSeconds: Math.max(...seconds),
    medianSeconds: median(seconds),
    medianBytes: median(all.map((c) => c.burstBytes?.median ?? 0)),
    peakBound: resolvedPeaks.length > 0 ? "measured" : "at-least",
    secondsBound: resolvedLengths.length > 0 ? "measured" : "at-most",
    intervalSeconds: Math.max(...all.map((c) => c.burstBounds?.intervalSeconds ?? 0)),
    memoryMb: bursting.map((c) => c.memoryMb),
    atEverySize: bursting.length === measured.length,
  };
}

const mb = (memoryMb: number) => `${formatNumber(memoryMb)} MB`;
const rate = (p: VerdictPoint) => formatMbps(p.sustainedBitsPerSecond);

function sentence(v: Omit<Verdict, "text">): string {
  const points = v.sustainedByMemoryMb;
  const withRate = points.filter((p) => p.sustainedBitsPerSecond !== null);
  const without = points.filter((p) => p.sustainedBitsPerSecond === null);
  if (v.shape === "no-data") return "no successful measurement";
  if (v.shape === "no-sustained") {
    const reasons = [...new Set(without.map((p) => p.missingReason))].join(", ");
    return `no sustained rate at any size (${reasons}): no transfer outlasted the burst${insideAdvice(without)}, see the summary`;
  }
  const parts = [rateClause(v, withRate)];
  if (without.length > 0)
    parts.push(
      `no sustained rate at ${without.map((p) => `${mb(p.memoryMb)} (${p.missingReason})`).join(", ")}`,
    );
  const burst = burstClause(v);
  if (burst) parts.push(burst);
  const unconfirmed = withRate.some((p) => !p.ceilingKnown)
    ? "; unconfirmed: no quota known to tell a long burst from the sustained rate"
    : "";
  return `${parts.join("; ")}${insideAdvice(without)}${unconfirmed}${repetitionNote(withRate)}`;
}

/** What to change when a transfer ended inside its burst. */
function insideAdvice(without: VerdictPoint[]): string {
  return without.some((p) => p.missingReason?.startsWith("ended inside the burst"))
    ? " (a longer transfer, or more connections, reaches the sustained rate)"
    : "";
}

function rateClause(v: Omit<Verdict, "text">, withRate: VerdictPoint[]): string {
  const cpuBound = withRate.filter((p) => p.cpuBound).map((p) => mb(p.memoryMb));
  const cpuNote = cpuBound.length > 0 ? `, CPU-bound at ${cpuBound.join(", ")}` : "";
  const untold = withRate.filter((p) => p.standing === "untold");
  if (v.shape === "single") {
    const only = withRate[0] as VerdictPoint;
    return `${mb(only.memoryMb)} gives ${rate(only)} Mbit/s sustained${quotaNote(only)}${cpuNote} (the only size with one)`;
  }
  if (v.shape === "flat") {
    const level = median(withRate.map((p) => p.sustainedBitsPerSecond as number));
    const every =
      withRate.length === v.sustainedByMemoryMb.length ? "at every size" : "at every size with one";
    const notCompared =
      untold.length > 0
        ? ` (not compared: ${untold.map((p) => `${mb(p.memoryMb)} n=${p.n}`).join(", ")})`
        : "";
    return `~${formatMbps(level)} Mbit/s sustained ${every}${cpuNote}: more memory buys no bandwidth${notCompared}`;
  }
  if (v.shape === "untold") {
    // no size leads: the rates in memory order, then why the knee cannot be told
    const rates = withRate.map((p) => rate(p)).join(" / ");
    const sizes = withRate.map((p) => formatNumber(p.memoryMb)).join(" / ");
    const why = withRate.every((p) => p.n < intervalMinimumRepetitions)
      ? "no knee at n<3"
      : v.kneeUnknownReason;
    return `${rates} Mbit/s sustained at ${sizes} MB${cpuNote}; ${why}`;
  }
  const lead = withRate.find((p) => p.memoryMb === v.leadMemoryMb) ?? (withRate.at(-1) as VerdictPoint);
  const others = withRate
    .filter((p) => p !== lead)
    .sort((a, b) => b.memoryMb - a.memoryMb)
    .map((p) => `${mb(p.memoryMb)} ${rate(p)}`);
  const listed = `${mb(lead.memoryMb)} gives ${rate(lead)} Mbit/s sustained${quotaNote(lead)}${v.shape === "rising" ? largerNote(lead, withRate) : ""}${others.length > 0 ? `, ${others.join(", ")}` : ""}${cpuNote}`;
  return listed;
}

/** How much more the sizes above the knee gave, to one decimal: the knee is where they stop being more beyond noise. */
function largerNote(lead: VerdictPoint, withRate: VerdictPoint[]): string {
  const larger = withRate.filter(
    (p) => p.memoryMb > lead.memoryMb && (p.standing === "plateau" || p.standing === "reaches"),
  );
  if (larger.length === 0) return "";
  const best = Math.max(...larger.map((p) => p.sustainedBitsPerSecond as number));
  const morePercent = (best / (lead.sustainedBitsPerSecond as number) - 1) * 100;
  return morePercent >= 0.05
    ? ` (larger sizes: up to ${formatNumber(morePercent, 1)}% more, not shown to be over ${formatNumber(minimumEffectShare * 100)}% more)`
    : " (larger sizes: no more)";
}

function quotaNote(p: VerdictPoint): string {
  return p.quotaPercent === null ? "" : ` (${formatPercentNear(p.quotaPercent, quotaShare * 100)} of quota)`;
}

function burstClause(v: Omit<Verdict, "text">): string | null {
  if (v.burstSeen === "none") return "no burst";
  const b = v.burst;
  if (!b) return null;
  const where = b.atEverySize
    ? b.memoryMb.length > 1
      ? " at every size"
      : ""
    : ` at ${b.memoryMb.map(mb).join(", ")}`;
  // a burst the samples did not resolve: its bytes, and bounds, never a rate the samples do not hold
  if (b.peakBound === "at-least" || b.secondsBound === "at-most") {
    const length = burstSecondsText(b.maxSeconds, b.secondsBound, b.intervalSeconds, 1);
    return `burst of ${formatNumber(b.medianBytes / 1e6)} MB above the sustained rate in ${length}${where} (peak ${burstRateText(b.minBitsPerSecond, b.peakBound)}: shorter than the ${formatNumber(b.intervalSeconds, 2)} s samples resolve)`;
  }
  // one or two intervals above the rest is a start-up wobble as much as a bucket: no rate for it
  if (b.medianSeconds < briefBurstSeconds) return `a brief burst (under ${briefBurstSeconds} s)`;
  const rates =
    b.maxBitsPerSecond <= burstSameRatio * b.minBitsPerSecond
      ? formatMbps(b.medianBitsPerSecond)
      : `${formatMbps(b.minBitsPerSecond)}-${formatMbps(b.maxBitsPerSecond)}`;
  const length =
    b.maxSeconds - b.minSeconds <= burstSameSeconds
      ? `${formatNumber(b.medianSeconds, 1)} s`
      : `${formatNumber(b.minSeconds, 1)}-${formatNumber(b.maxSeconds, 1)} s`;
  return `burst ${rates} for ${length}${where}`;
}

/** A number we print is a promise: say when it rests on fewer repetitions than a spread needs. */
function repetitionNote(withRate: VerdictPoint[]): string {
  const ns = withRate.map((p) => p.n);
  const fewest = Math.min(...ns);
  if (fewest >= spreadMinimumRepetitions) return "";
  const most = Math.max(...ns);
  return ` (n=${fewest === most ? fewest : `${fewest}-${most}`}${most < spreadMinimumRepetitions ? ", no spread" : ""})`;
}
