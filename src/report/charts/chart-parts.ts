import type { CellStatistics } from "../../results/analysis.js";
import type { Spread } from "../../results/statistics.js";
import type { ReportModel } from "../report-model.js";

/** Pieces every chart of the report shares, so they read alike. */
export const schema = "https://vega.github.io/schema/vega-lite/v6.json";

/**
 * A chart subtitle, one clause a line (so a phone-width chart stays narrow), after the EMULATED
 * label on lab results.
 */
export function chartSubtitle(model: ReportModel, extra: string): string[] {
  const lines = extra.split("; ");
  return model.label ? [`${model.label.toUpperCase()} results (local lab)`, ...lines] : lines;
}

export function slug(text: string): string {
  return text
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}

/** The memory sizes the cells measured, ascending. */
export function memorySizes(cells: Array<Pick<CellStatistics, "memoryMb">>): number[] {
  return [...new Set(cells.map((c) => c.memoryMb))].sort((a, b) => a - b);
}

/**
 * A categorical memory axis at exactly the sizes measured (as AWS Lambda Power Tuning draws it):
 * a linear axis would put ticks at sizes nobody ran and invite reading a curve between them.
 */
export function memoryAxis(sizes: number[], labelAngle = 0) {
  return {
    field: "memoryMb",
    type: "ordinal",
    title: "Memory (MB)",
    scale: { domain: sizes },
    axis: { labelAngle, labelExpr: "format(datum.value, ',')" },
  } as const;
}

/** A rate's median and its min-max bar in Mbit/s: the fields `minMaxRule` and a rate mark read. */
export function spreadMbps(spread: Spread): { rateMbps: number; minMbps: number; maxMbps: number } {
  return { rateMbps: spread.median / 1e6, minMbps: spread.min / 1e6, maxMbps: spread.max / 1e6 };
}

/** The min-max bar of a median, in its probe's colour and slot. */
export function minMaxRule(
  filter: string,
  encoding: { x: object; xOffset: object; color: object },
  field = "Mbps",
) {
  return {
    transform: [{ filter }],
    mark: { type: "rule", strokeWidth: 2 },
    encoding: {
      ...encoding,
      y: { field: `min${field}`, type: "quantitative" },
      y2: { field: `max${field}` },
    },
  };
}

/** The rate axis from 0 to a little above the highest mark, so no mark or label sits on the frame. */
export function rateAxis(highestMbps: number) {
  return {
    field: "rateMbps",
    type: "quantitative",
    title: "Rate (Mbit/s)",
    scale: { domain: [0, highestMbps * 1.1], nice: true },
  } as const;
}
