import type { CellStatistics } from "../results/analysis.js";
import type { ReportModel } from "./report-model.js";
import { formatMbps, formatNumber } from "./units.js";

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
}

export interface Comparison {
  runA: string;
  runB: string;
  labelA: string | null;
  labelB: string | null;
  /** How cells were paired: by target when the runs share targets, else target i of A with target i of B. */
  pairing: "same-target" | "target-order";
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
  const measuring = (model: ReportModel) => model.analysis.cells.filter((c) => c.probe !== "info");
  const cellsB = new Map(measuring(b).map((cell) => [pairKey(cell, targetsB), cell]));
  const rows: ComparisonRow[] = [];
  const used = new Set<string>();
  for (const cellA of measuring(a)) {
    const key = pairKey(cellA, targetsA);
    const cellB = cellsB.get(key) ?? null;
    if (cellB) used.add(key);
    rows.push(row(cellA, cellB));
  }
  for (const [key, cellB] of cellsB) if (!used.has(key)) rows.push(row(null, cellB));
  return {
    runA: a.runId,
    runB: b.runId,
    labelA: a.label,
    labelB: b.label,
    pairing: shared ? "same-target" : "target-order",
    rows,
  };
}

function row(a: CellStatistics | null, b: CellStatistics | null): ComparisonRow {
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
  };
}

const headers = [
  "Target A",
  "Target B",
  "Probe",
  "Arch",
  "Memory (MB)",
  "A sustained (Mbit/s)",
  "A n",
  "A effective (Mbit/s)",
  "B sustained (Mbit/s)",
  "B n",
  "B effective (Mbit/s)",
  "Delta sustained (Mbit/s)",
  "Delta (%)",
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
  ];
}

function labelLine(c: Comparison): string {
  const describe = (label: string | null) => (label ? label.toUpperCase() : "measured");
  return `A = ${c.runA} (${describe(c.labelA)}), B = ${c.runB} (${describe(c.labelB)}); pairing: ${c.pairing}`;
}

export function renderComparisonText(c: Comparison): string {
  const rows = c.rows.map(rowCells);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((t, i) => (i >= 4 ? t.padStart(widths[i] as number) : t.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  return `${[labelLine(c), "", line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")}\n`;
}

export function renderComparisonMarkdown(c: Comparison): string {
  const out = [
    `# Comparison`,
    "",
    labelLine(c),
    "",
    `| ${headers.join(" | ")} |`,
    `| ${headers.map((_, i) => (i >= 4 ? "---:" : ":---")).join(" | ")} |`,
  ];
  for (const r of c.rows)
    out.push(
      `| ${rowCells(r)
        .map((t) => t.replaceAll("|", "\\|"))
        .join(" | ")} |`,
    );
  return `${out.join("\n")}\n`;
}
