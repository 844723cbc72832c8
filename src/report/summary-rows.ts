import type { CellStatistics, CurveAnalysis } from "../results/analysis.js";
import type { ReportModel } from "./report-model.js";
import { formatDuration, formatMbps, formatNumber, formatPercent, formatUsd } from "./units.js";

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

/** A right-aligned Mbit/s column of one rate in bits per second. */
function mbpsColumn(header: string, pick: (cell: CellStatistics) => number | null | undefined): Column {
  return { header, text: (c) => formatMbps(pick(c)), raw: (c) => mbit(pick(c)), align: "right" };
}

export const summaryColumns: Column[] = [
  { header: "Target", text: (c) => c.target, raw: (c) => c.target, align: "left" },
  { header: "Probe", text: (c) => c.probeLabel, raw: (c) => c.probeLabel, align: "left" },
  { header: "Arch", text: (c) => c.arch, raw: (c) => c.arch, align: "left" },
  { header: "Memory (MB)", text: (c) => formatNumber(c.memoryMb), raw: (c) => c.memoryMb, align: "right" },
  {
    header: "n",
    text: (c) => `${c.average?.n ?? 0}/${c.plannedRepetitions}`,
    raw: (c) => c.average?.n ?? 0,
    align: "right",
  },
  mbpsColumn("Median (Mbit/s)", (c) => c.average?.median),
  {
    header: "Min-max (Mbit/s)",
    text: (c) => (c.average ? `${formatMbps(c.average.min)}-${formatMbps(c.average.max)}` : "–"),
    raw: (c) => (c.average ? `${mbit(c.average.min)}-${mbit(c.average.max)}` : null),
    align: "right",
  },
  mbpsColumn("IQR (Mbit/s)", (c) => c.average?.iqr),
  {
    header: "CV (%)",
    text: (c) => (c.average?.cv === null || c.average === null ? "–" : formatNumber(c.average.cv * 100, 1)),
    raw: (c) => (c.average?.cv === null || c.average === null ? null : c.average.cv * 100),
    align: "right",
  },
  mbpsColumn("Burst 1st s (Mbit/s)", (c) => c.burst?.median),
  mbpsColumn("Sustained (Mbit/s)", (c) => c.sustained?.median),
  {
    header: "Quota (%)",
    text: (c) => formatPercent(c.quotaPercent),
    raw: (c) => c.quotaPercent,
    align: "right",
  },
  {
    header: "CPU used/share (cores)",
    text: (c) =>
      `${formatNumber(c.cpuCores?.median, 2)}/${formatNumber(c.cpuShareCores, 2)}${c.cpuBound ? " CPU-BOUND" : ""}`,
    raw: (c) => c.cpuCores?.median ?? null,
    align: "right",
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

export function failureText(cell: CellStatistics): string {
  const entries = Object.entries(cell.failures);
  return entries.length === 0 ? "0" : entries.map(([kind, count]) => `${count} ${kind}`).join(", ");
}

/** Cells that measure a rate (info cells move no data). */
export function measuringCells(model: ReportModel): CellStatistics[] {
  const order = new Map<string, number>();
  for (const cell of model.analysis.cells)
    if (!order.has(cell.probeKey)) order.set(cell.probeKey, order.size);
  const targets = model.targets.map((t) => t.key);
  return model.analysis.cells
    .filter((c) => c.probe !== "info")
    .sort(
      (a, b) =>
        targets.indexOf(a.targetKey) - targets.indexOf(b.targetKey) ||
        (order.get(a.probeKey) ?? 0) - (order.get(b.probeKey) ?? 0) ||
        a.arch.localeCompare(b.arch) ||
        a.memoryMb - b.memoryMb,
    );
}

/** One sentence per curve: plateau, knee, slope, recommendation, cost and time to move N GB. */
export function curveSentence(curve: CurveAnalysis, moveGigabytes: number): string {
  if (curve.plateauBitsPerSecond === null)
    return `${curve.target} ${curve.arch} ${curve.probeLabel}: no successful measurement.`;
  return (
    `${curve.target} ${curve.arch} ${curve.probeLabel}: plateau ${formatMbps(curve.plateauBitsPerSecond)} Mbit/s, ` +
    `reached (95%) from ${formatNumber(curve.kneeMemoryMb)} MB` +
    (curve.slopeBitsPerSecondPerGigabyte
      ? `, rising ${formatNumber(curve.slopeBitsPerSecondPerGigabyte / 1e6)} Mbit/s per GB of memory up to there. `
      : " (flat over the sizes measured). ") +
    `Recommended: ${formatNumber(curve.recommendedMemoryMb)} MB at ${formatUsd(curve.recommendedCostPerGigabyteUsd)} per GB moved; ` +
    `${formatNumber(moveGigabytes)} GB take ${formatDuration(curve.moveSeconds)}.`
  );
}
