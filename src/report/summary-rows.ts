import { movesData } from "../probes/registry.js";
import type { CellStatistics, CurveAnalysis } from "../results/analysis.js";
import { quotaShare } from "../results/bottleneck.js";
import { cpuBoundShare } from "../results/cpu-share.js";
import type { Spread } from "../results/statistics.js";
import { bottleneckMarks } from "./bottleneck-lines.js";
import { burstRateText, burstSecondsText } from "./burst-text.js";
import { rateHeaders } from "./rate-words.js";
import type { ReportModel } from "./report-model.js";
import { spreadMinimumRepetitions } from "./statistics-display.js";
import { formatDuration, formatMbps, formatNumber, formatPercentNear, formatUsd } from "./units.js";

/**
 * The summary table every text format shows (terminal, Markdown, CSV): one row per measuring
 * cell, columns with units in their headers. `raw` keeps machine values for CSV.
 */
export interface Column {
  header: string;
  text: (cell: CellStatistics) => string;
  raw: (cell: CellStatistics) => string | number | boolean | null;
  align: "left" | "right";
}

const mbit = (bps: number | null | undefined) => (bps === null || bps === undefined ? null : bps / 1e6);

/** "600 [590-612] n=3": the median, the min-max spread (from n >= 3 only) and the repetitions. */
function spreadText(spread: Spread | null, format: (v: number) => string): string {
  if (!spread) return "–";
  const range = spread.n >= spreadMinimumRepetitions ? ` [${format(spread.min)}-${format(spread.max)}]` : "";
  return `${format(spread.median)}${range} n=${spread.n}`;
}

const mbps = (v: number) => formatMbps(v);

/** A rate with its spread and n, in Mbit/s. */
function rateColumn(
  header: string,
  pick: (cell: CellStatistics) => Spread | null,
  empty?: (cell: CellStatistics) => string,
): Column {
  return {
    header,
    text: (c) => {
      const spread = pick(c);
      return spread ? spreadText(spread, mbps) : (empty?.(c) ?? "–");
    },
    raw: (c) => mbit(pick(c)?.median),
    align: "right",
  };
}

/** Why a cell has no sustained rate, short: "too short", "not settled". */
export function sustainedMissingText(cell: CellStatistics): string {
  if (cell.effective === null) return "–";
  if (cell.insideBurst.repetitions > 0) return "– (ended in burst)";
  const reason = cell.sustainedNullReasons[0] ?? "";
  if (reason.startsWith("too short")) return "– (too short)";
  if (reason.includes("did not settle")) return "– (not settled)";
  return "– (no samples)";
}

function burstText(cell: CellStatistics): string {
  if (cell.burst) {
    const bound = cell.burstBounds?.peak ?? "measured";
    return spreadText(cell.burst, (v) => burstRateText(v, bound));
  }
  const found = cell.burstFound;
  if (found.none > 0 && found.detected === 0) return "none";
  return found.undetermined > 0 ? "? (too short)" : "–";
}

/** "1.10 s, 150 MB": the length at the peak and the bytes above the sustained rate ("< 0.25 s" inside one sample). */
function burstLengthText(cell: CellStatistics): string {
  if (!cell.burstSeconds || !cell.burstBytes || !cell.burstBounds) return "–";
  const { seconds, intervalSeconds } = cell.burstBounds;
  return `${burstSecondsText(cell.burstSeconds.median, seconds, intervalSeconds)}, ${formatNumber(cell.burstBytes.median / 1e6)} MB`;
}

/**
 * Cores that round to the CPU-bound line (90% of the share) say their share, so the figures agree
 * with the mark: 0.52 of 0.58 cores is 89.9%, not CPU-bound, though 0.52/0.58 reads 0.897 and
 * 0.53/0.58 would read bound.
 */
function cpuShareNearBound(cell: CellStatistics): string {
  const used = cell.cpuCores?.median;
  if (used === undefined || !(cell.cpuShareCores > 0)) return "";
  const percent = (used / cell.cpuShareCores) * 100;
  return Math.abs(percent - cpuBoundShare * 100) < 2
    ? ` (${formatPercentNear(percent, cpuBoundShare * 100)})`
    : "";
}

function pairText(a: number | null | undefined, b: number | null | undefined, format: (v: number) => string) {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return "–";
  const one = (v: number | null | undefined) => (v === null || v === undefined ? "–" : format(v));
  return `${one(a)} / ${one(b)}`;
}

const seconds = (v: number) => formatNumber(v, 2);

export const summaryColumns: Column[] = [
  { header: "Target", text: (c) => c.target, raw: (c) => c.target, align: "left" },
  { header: "Probe", text: (c) => c.probeLabel, raw: (c) => c.probeLabel, align: "left" },
  { header: "Arch", text: (c) => c.arch, raw: (c) => c.arch, align: "left" },
  { header: "Memory (MB)", text: (c) => formatNumber(c.memoryMb), raw: (c) => c.memoryMb, align: "right" },
  {
    header: "n ok/planned",
    text: (c) => `${c.effective?.n ?? 0}/${c.plannedRepetitions}`,
    raw: (c) => c.effective?.n ?? 0,
    align: "right",
  },
  {
    ...rateColumn(`${rateHeaders.sustained} [min-max]`, (c) => c.sustained, sustainedMissingText),
    text: (c) =>
      c.sustained
        ? `${spreadText(c.sustained, mbps)}${c.ceiling === null ? " unconfirmed" : ""}`
        : sustainedMissingText(c),
  },
  { ...rateColumn(`${rateHeaders.burst} [min-max]`, (c) => c.burst), text: burstText },
  {
    header: "Burst length (s, MB)",
    text: burstLengthText,
    raw: (c) => c.burstSeconds?.median ?? null,
    align: "right",
  },
  rateColumn(`${rateHeaders.average} [min-max]`, (c) => c.effective),
  {
    header: "Sent / received (Mbit/s)",
    text: (c) => pairText(c.sent?.median, c.received?.median, mbps),
    raw: (c) => mbit(c.sent?.median),
    align: "right",
  },
  {
    header: "Per object: transfer / whole (s)",
    text: (c) =>
      // only probes that time a whole object (s3-get) report its whole seconds
      c.wholeSeconds ? pairText(c.transferSeconds?.median, c.wholeSeconds.median, seconds) : "–",
    raw: (c) => c.wholeSeconds?.median ?? null,
    align: "right",
  },
  {
    header: "Retransmits",
    text: (c) => formatNumber(c.retransmits?.median),
    raw: (c) => c.retransmits?.median ?? null,
    align: "right",
  },
  {
    header: "Quota (%)",
    text: (c) => formatPercentNear(c.quotaPercent, quotaShare * 100),
    raw: (c) => c.quotaPercent,
    align: "right",
  },
  {
    header: "CPU used/share (cores)",
    text: (c) =>
      `${formatNumber(c.cpuCores?.median, 2)}/${formatNumber(c.cpuShareCores, 2)}${cpuShareNearBound(c)}${c.cpuBound ? " CPU-BOUND" : ""}`,
    raw: (c) => c.cpuCores?.median ?? null,
    align: "right",
  },
  {
    header: "Limit",
    text: (c) => bottleneckMarks[c.bottleneck.kind],
    raw: (c) => c.bottleneck.kind,
    align: "left",
  },
  {
    header: "Cost ($/GB)",
    text: (c) => formatUsd(c.costPerGigabyteUsd),
    raw: (c) => c.costPerGigabyteUsd,
    align: "right",
  },
  {
    header: "Failed",
    text: (c) => failureText(c),
    raw: (c) => Object.values(c.failures).reduce((a, b) => a + b, 0),
    align: "left",
  },
];

/** A CSV column: a header with its unit and a raw value. */
export interface CsvColumn {
  header: string;
  raw: (cell: CellStatistics) => string | number | boolean | null;
}

/** Every statistic of a spread as its own raw column: median, min, max, IQR, CV (%), n. */
function spreadCsvColumns(
  name: string,
  unit: string,
  scale: number,
  pick: (c: CellStatistics) => Spread | null,
): CsvColumn[] {
  const value = (f: (s: Spread) => number | null) => (c: CellStatistics) => {
    const spread = pick(c);
    const v = spread ? f(spread) : null;
    return v === null ? null : v / scale;
  };
  return [
    { header: `${name} median (${unit})`, raw: value((s) => s.median) },
    { header: `${name} min (${unit})`, raw: value((s) => s.min) },
    { header: `${name} max (${unit})`, raw: value((s) => s.max) },
    { header: `${name} IQR (${unit})`, raw: value((s) => s.iqr) },
    {
      header: `${name} CV (%)`,
      raw: (c) => {
        const cv = pick(c)?.cv;
        return cv === null || cv === undefined ? null : cv * 100;
      },
    },
    { header: `${name} n`, raw: (c) => pick(c)?.n ?? 0 },
  ];
}

/** The CSV summary: raw numbers, one column per statistic, units in the headers. */
export const csvColumns: CsvColumn[] = [
  { header: "Target", raw: (c) => c.target },
  { header: "Probe", raw: (c) => c.probeLabel },
  { header: "Arch", raw: (c) => c.arch },
  { header: "Memory (MB)", raw: (c) => c.memoryMb },
  { header: "Planned repetitions", raw: (c) => c.plannedRepetitions },
  ...spreadCsvColumns("Sustained", "Mbit/s", 1e6, (c) => c.sustained),
  { header: "Sustained missing because", raw: (c) => c.sustainedNullReasons.join("; ") || null },
  { header: "Ceiling in force (Mbit/s)", raw: (c) => mbit(c.ceiling?.bitsPerSecond) },
  { header: "Sustained confirmed by the ceiling", raw: (c) => (c.sustained ? c.ceiling !== null : null) },
  { header: "Repetitions ended inside the burst", raw: (c) => c.insideBurst.repetitions },
  ...spreadCsvColumns("Burst", "Mbit/s", 1e6, (c) => c.burst),
  { header: "Burst peak bound (measured / at-least)", raw: (c) => c.burstBounds?.peak ?? null },
  { header: "Burst seconds median (s)", raw: (c) => c.burstSeconds?.median ?? null },
  { header: "Burst seconds bound (measured / at-most)", raw: (c) => c.burstBounds?.seconds ?? null },
  { header: "Burst bytes above sustained median (bytes)", raw: (c) => c.burstBytes?.median ?? null },
  {
    header: "Burst detected / none / undetermined",
    raw: (c) => `${c.burstFound.detected}/${c.burstFound.none}/${c.burstFound.undetermined}`,
  },
  ...spreadCsvColumns("Avg incl. burst", "Mbit/s", 1e6, (c) => c.effective),
  { header: "Sent median (Mbit/s)", raw: (c) => mbit(c.sent?.median) },
  { header: "Received median (Mbit/s)", raw: (c) => mbit(c.received?.median) },
  { header: "Transfer seconds per object median (s)", raw: (c) => c.transferSeconds?.median ?? null },
  { header: "Whole seconds per object median (s)", raw: (c) => c.wholeSeconds?.median ?? null },
  { header: "Retransmits median", raw: (c) => c.retransmits?.median ?? null },
  { header: "Quota of sustained (%)", raw: (c) => c.quotaPercent },
  { header: "CPU used median (cores)", raw: (c) => c.cpuCores?.median ?? null },
  { header: "CPU share (cores)", raw: (c) => c.cpuShareCores },
  { header: "CPU-bound", raw: (c) => c.cpuBound },
  { header: "Bottleneck", raw: (c) => c.bottleneck.kind },
  { header: "Cost at sustained ($/GB)", raw: (c) => c.costPerGigabyteUsd },
  { header: "Failed", raw: (c) => Object.values(c.failures).reduce((a, b) => a + b, 0) },
];

export function failureText(cell: CellStatistics): string {
  const entries = Object.entries(cell.failures);
  return entries.length === 0 ? "0" : entries.map(([kind, count]) => `${count} ${kind}`).join(", ");
}

/** Cells that measure a rate (info cells move no data, latency cells are timed). */
export function measuringCells(model: ReportModel): CellStatistics[] {
  const order = new Map<string, number>();
  for (const cell of model.analysis.cells)
    if (!order.has(cell.probeKey)) order.set(cell.probeKey, order.size);
  const targets = model.targets.map((t) => t.key);
  return model.analysis.cells
    .filter((c) => movesData(c.probe))
    .sort(
      (a, b) =>
        targets.indexOf(a.targetKey) - targets.indexOf(b.targetKey) ||
        (order.get(a.probeKey) ?? 0) - (order.get(b.probeKey) ?? 0) ||
        a.arch.localeCompare(b.arch) ||
        a.memoryMb - b.memoryMb,
    );
}

/**
 * One sentence per curve: plateau, knee, slope, recommendation with its n, cost and time to move
 * N GB, all at the sustained rate; when the knee cannot be told, the highest median and why not.
 */
export function curveSentence(curve: CurveAnalysis, moveGigabytes: number): string {
  const name = `${curve.target} ${curve.arch} ${curve.probeLabel}`;
  const missing =
    curve.missing.length > 0
      ? ` No sustained rate at ${curve.missing.map((m) => `${formatNumber(m.memoryMb)} MB (${m.reason})`).join(", ")}.`
      : "";
  if (curve.plateauBitsPerSecond === null)
    return curve.missing.length > 0
      ? `${name}: no headline: no sustained rate.${missing}`
      : `${name}: no successful measurement.`;
  const highest = `${formatMbps(curve.plateauBitsPerSecond)} Mbit/s (median, n=${curve.plateauRepetitions} at ${formatNumber(curve.plateauMemoryMb)} MB)`;
  if (curve.kneeMemoryMb === null)
    return `${name}: highest sustained ${highest}; no knee and no recommendation: ${curve.kneeUnknownReason}.${missing}`;
  const reached =
    curve.slopeBitsPerSecondPerGigabyte === 0
      ? " (flat over the sizes measured)"
      : `, every smaller size below it beyond noise${
          curve.slopeBitsPerSecondPerGigabyte
            ? `, rising ${formatNumber(curve.slopeBitsPerSecondPerGigabyte / 1e6)} Mbit/s per GB of memory up to there`
            : ""
        }`;
  const leftOut =
    curve.cpuBoundLeftOutMemoryMb.length > 0
      ? ` (left out as CPU-bound: ${curve.cpuBoundLeftOutMemoryMb.map((m) => `${formatNumber(m)} MB`).join(", ")})`
      : "";
  const recommendation =
    curve.recommendedMemoryMb === null
      ? `No recommendation: ${curve.noRecommendationReason}.`
      : `Recommended: ${formatNumber(curve.recommendedMemoryMb)} MB (n=${curve.recommendedRepetitions}) at ${formatUsd(curve.recommendedCostPerGigabyteUsd)} per GB moved${leftOut}; ` +
        `${formatNumber(moveGigabytes)} GB take ${formatDuration(curve.moveSeconds)} at the sustained rate.`;
  return `${name}: sustained plateau ${highest}, reached from ${formatNumber(curve.kneeMemoryMb)} MB${reached}. ${recommendation}${missing}`;
}
