import { movesData } from "../probes/registry.js";
import { type CellStatistics, minimumEffectShare } from "../results/analysis.js";
import {
  intervalMethod,
  intervalMinimumRepetitions,
  medianDifferenceInterval,
} from "../results/median-interval.js";
import type { ReportModel } from "./report-model.js";
import { markdownTable, type TableColumn, textTable } from "./tables.js";
import { renderPivot, wrap } from "./text-layout.js";
import { formatMbps, formatNumber, formatPercentNear } from "./units.js";

export interface ComparisonRow {
  /** The target in each run (they differ when comparing region against region). */
  targetA: string;
  targetB: string;
  probeLabel: string;
  arch: string;
  memoryMb: number;
  a: CellStatistics | null;
  b: CellStatistics | null;
  /** B - A of the median sustained rate, bit/s (the headline rate). */
  deltaBitsPerSecond: number | null;
  deltaPercent: number | null;
  /**
   * How far to trust the delta: "same run" (both sides are one run), "beyond noise" (the 95%
   * bootstrap interval on the difference of medians excludes zero and the delta is at least 5% of
   * A), "within noise" (otherwise), "n too small to tell" (a side has fewer than 3 repetitions), or
   * null when a side has no sustained rate.
   */
  confidence: "same run" | "within noise" | "beyond noise" | "n too small to tell" | null;
  /** The interval on B - A of the medians, bit/s; null below 3 repetitions a side or without a rate. */
  interval: { lowBitsPerSecond: number; highBitsPerSecond: number } | null;
  /** Short probe name for narrow tables ("iperf3 up -P4"). */
  probeShort: string;
}

export interface Comparison {
  runA: string;
  runB: string;
  labelA: string | null;
  labelB: string | null;
  /** How cells were paired: by target when the runs share targets, else target i of A with target i of B. */
  pairing: "same-target" | "target-order";
  /** Both sides are the same run (same run id): every delta is zero by construction. */
  sameRun: boolean;
  rows: ComparisonRow[];
}

/**
 * Pairs the cells of two runs (same probe parameters, architecture and memory) and the deltas of
 * their medians. Runs with no target in common (e.g. us-west-2 vs ap-northeast-1) pair their
 * targets in plan order. Pure.
 */
export function compareRuns(a: ReportModel, b: ReportModel): Comparison {
  const targetsA = a.targets.map((t) => t.key);
  const targetsB = b.targets.map((t) => t.key);
  const shared = targetsA.some((key) => targetsB.includes(key));
  const pairKey = (cell: CellStatistics, targets: string[]) =>
    `${shared ? cell.targetKey : targets.indexOf(cell.targetKey)}|${cell.probeKey}|${cell.arch}|${cell.memoryMb}`;
  const measuring = (model: ReportModel) => model.analysis.cells.filter((c) => movesData(c.probe));
  const cellsB = new Map(measuring(b).map((cell) => [pairKey(cell, targetsB), cell]));
  const rows: ComparisonRow[] = [];
  const used = new Set<string>();
  const sameRun = a.runId === b.runId;
  const names = { ...b.probeNames, ...a.probeNames };
  const short = (cell: CellStatistics) => names?.[cell.probeKey]?.short ?? cell.probeLabel;
  for (const cellA of measuring(a)) {
    const key = pairKey(cellA, targetsA);
    const cellB = cellsB.get(key) ?? null;
    if (cellB) used.add(key);
    rows.push(row(cellA, cellB, sameRun, short(cellA)));
  }
  for (const [key, cellB] of cellsB) if (!used.has(key)) rows.push(row(null, cellB, sameRun, short(cellB)));
  return {
    runA: a.runId,
    runB: b.runId,
    labelA: a.label,
    labelB: b.label,
    pairing: shared ? "same-target" : "target-order",
    sameRun,
    rows,
  };
}

function row(
  a: CellStatistics | null,
  b: CellStatistics | null,
  sameRun: boolean,
  probeShort: string,
): ComparisonRow {
  const any = (a ?? b) as CellStatistics;
  const medianA = a?.sustained?.median ?? null;
  const medianB = b?.sustained?.median ?? null;
  const delta = medianA !== null && medianB !== null ? medianB - medianA : null;
  return {
    targetA: a?.target ?? "–",
    targetB: b?.target ?? "–",
    probeLabel: any.probeLabel,
    arch: any.arch,
    memoryMb: any.memoryMb,
    a,
    b,
    deltaBitsPerSecond: delta,
    deltaPercent: delta !== null && medianA ? (delta / medianA) * 100 : null,
    ...noiseOf(a, b, delta, sameRun),
    probeShort,
  };
}

/**
 * Whether the two cells' repetitions tell their medians apart: beyond noise only when the interval
 * on the difference of medians excludes zero and the delta is at least the minimum effect. At 3
 * repetitions a side the interval excludes zero exactly when the min-max ranges are apart, which
 * happens in 1 of 10 pairs with nothing changed; the 5% floor brings that to about 2 in 100 at 3%
 * noise, and spares lab cells with near-zero spread from a 1 Mbit/s "shift".
 */
function noiseOf(
  a: CellStatistics | null,
  b: CellStatistics | null,
  delta: number | null,
  sameRun: boolean,
): Pick<ComparisonRow, "confidence" | "interval"> {
  if (delta === null || !a?.sustained || !b?.sustained) return { confidence: null, interval: null };
  if (sameRun) return { confidence: "same run", interval: null };
  const interval = medianDifferenceInterval(a.sustainedValues, b.sustainedValues);
  if (interval === null) return { confidence: "n too small to tell", interval: null };
  const apart = interval.low > 0 || interval.high < 0;
  const large = Math.abs(delta) >= minimumEffectShare * a.sustained.median;
  return {
    confidence: apart && large ? "beyond noise" : "within noise",
    interval: { lowBitsPerSecond: interval.low, highBitsPerSecond: interval.high },
  };
}

/** The rule in words, for every format's label line and legend. */
const noiseRule = `"beyond noise" when the ${intervalMethod} excludes zero and the delta is at least ${minimumEffectShare * 100}% of A; "within noise" otherwise; "n too small to tell" below ${intervalMinimumRepetitions} repetitions a side (each side's n is in its column)`;

const headers = [
  "Target A",
  "Target B",
  "Probe",
  "Arch",
  "Memory (MB)",
  "A sustained (Mbit/s)",
  "A n",
  "A avg incl. burst (Mbit/s)",
  "B sustained (Mbit/s)",
  "B n",
  "B avg incl. burst (Mbit/s)",
  "Delta sustained (Mbit/s)",
  "Delta (%)",
  "Delta is",
];

function rowCells(r: ComparisonRow): string[] {
  const signed = (v: number | null, text: string) => (v === null ? "–" : `${v > 0 ? "+" : ""}${text}`);
  return [
    r.targetA,
    r.targetB,
    r.probeLabel,
    r.arch,
    formatNumber(r.memoryMb),
    formatMbps(r.a?.sustained?.median),
    String(r.a?.sustained?.n ?? 0),
    formatMbps(r.a?.effective?.median),
    formatMbps(r.b?.sustained?.median),
    String(r.b?.sustained?.n ?? 0),
    formatMbps(r.b?.effective?.median),
    signed(r.deltaBitsPerSecond, formatMbps(r.deltaBitsPerSecond)),
    signed(r.deltaPercent, formatNumber(r.deltaPercent, 1)),
    r.confidence ?? "–",
  ];
}

function labelLine(c: Comparison): string {
  const describe = (label: string | null) => (label ? label.toUpperCase() : "measured");
  if (c.sameRun)
    return `A and B are the same run (${c.runA}, ${describe(c.labelA)}): every delta is zero by construction, so this says nothing about noise; compare two runs to see one.`;
  return `A = ${c.runA} (${describe(c.labelA)}), B = ${c.runB} (${describe(c.labelB)}); pairing: ${c.pairing}. Delta of the median sustained rates; ${noiseRule}.`;
}

/**
 * The comparison for a terminal: a block per target pair, a row per probe, the memory sizes as
 * columns; each cell "A → B (delta%)" and a mark for how far to trust it.
 */
export function renderComparisonCompact(c: Comparison, width: number): string {
  const sizes = [...new Set(c.rows.map((r) => r.memoryMb))].sort((x, y) => x - y);
  const marks: Record<string, string> = {
    "within noise": "~",
    "n too small to tell": "?",
    "beyond noise": "",
    "same run": "=",
  };
  const groups = new Map<string, ComparisonRow[]>();
  for (const r of c.rows) {
    const key = `${r.targetA}|${r.targetB}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const blocks = [...groups.values()].map((rows) => {
    const first = rows[0] as ComparisonRow;
    const probes = new Map<string, ComparisonRow[]>();
    for (const r of rows) {
      const key = `${r.probeShort}${r.arch}`;
      probes.set(key, [...(probes.get(key) ?? []), r]);
    }
    return {
      heading: first.targetA === first.targetB ? first.targetA : `A ${first.targetA} vs B ${first.targetB}`,
      rows: [...probes.values()].map((list) => ({
        label: (list[0] as ComparisonRow).probeShort,
        cells: sizes.map((size) => {
          const r = list.find((x) => x.memoryMb === size);
          if (!r) return "";
          if (r.deltaPercent === null)
            return `${formatMbps(r.a?.sustained?.median)}→${formatMbps(r.b?.sustained?.median)}`;
          const sign = r.deltaPercent > 0 ? "+" : "";
          // one decimal near the minimum effect: a 4.6% delta within noise never reads "+5%"
          return `${formatMbps(r.b?.sustained?.median)} ${sign}${formatPercentNear(r.deltaPercent, Math.sign(r.deltaPercent) * minimumEffectShare * 100)}${marks[r.confidence ?? ""] ?? ""}`;
        }),
      })),
    };
  });
  const legend = c.sameRun
    ? "= same run"
    : `cells: B's median sustained Mbit/s and its delta from A; ~ within noise, ? n too small to tell (fewer than ${intervalMinimumRepetitions} repetitions a side), no mark: beyond noise (the ${intervalMethod} excludes zero and the delta is at least ${minimumEffectShare * 100}%)`;
  return `${[
    ...wrap(labelLine(c), width),
    "",
    ...renderPivot(
      sizes.map((s) => `${formatNumber(s)} MB`),
      blocks,
      width,
      "Probe",
    ),
    ...wrap(legend, width),
    ...wrap("Every column: `lambda-netbench compare A B --wide` or --format md.", width),
  ].join("\n")}\n`;
}

/** The comparison as JSON (rates in bit/s): `compare --json`. */
export function renderComparisonJson(c: Comparison): string {
  const rate = (cell: CellStatistics | null) =>
    cell?.sustained ? { median: cell.sustained.median, n: cell.sustained.n } : null;
  return `${JSON.stringify(
    {
      runA: c.runA,
      runB: c.runB,
      labelA: c.labelA,
      labelB: c.labelB,
      pairing: c.pairing,
      sameRun: c.sameRun,
      noiseTest: {
        method: intervalMethod,
        minimumEffectPercent: minimumEffectShare * 100,
        minimumRepetitions: intervalMinimumRepetitions,
      },
      rows: c.rows.map((r) => ({
        targetA: r.targetA,
        targetB: r.targetB,
        probeLabel: r.probeLabel,
        arch: r.arch,
        memoryMb: r.memoryMb,
        sustainedBitsPerSecondA: rate(r.a),
        sustainedBitsPerSecondB: rate(r.b),
        deltaBitsPerSecond: r.deltaBitsPerSecond,
        deltaPercent: r.deltaPercent,
        confidence: r.confidence,
        deltaIntervalBitsPerSecond: r.interval,
      })),
    },
    null,
    2,
  )}\n`;
}

/** The comparison's columns: the first four name the cell, the rest are figures. */
const columns: TableColumn[] = headers.map((header, i) => ({ header, align: i >= 4 ? "right" : "left" }));

export function renderComparisonText(c: Comparison): string {
  return `${[labelLine(c), "", ...textTable(columns, c.rows.map(rowCells))].join("\n")}\n`;
}

export function renderComparisonMarkdown(c: Comparison): string {
  return `${["# Comparison", "", labelLine(c), "", ...markdownTable(columns, c.rows.map(rowCells))].join("\n")}\n`;
}
