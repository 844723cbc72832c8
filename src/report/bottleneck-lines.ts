import type { CellStatistics } from "../results/analysis.js";
import type { BottleneckKind } from "../results/bottleneck.js";
import { formatNumber } from "./units.js";

/** The short mark of the summary table: what limited the cell. */
export const bottleneckMarks: Record<BottleneckKind, string> = {
  quota: "quota",
  flow: "per-flow",
  cpu: "CPU",
  server: "server",
  undetermined: "?",
};

const verdicts: Record<BottleneckKind, string> = {
  quota: "quota-bound",
  flow: "flow-bound",
  cpu: "CPU-bound",
  server: "server-bound",
  undetermined: "bottleneck not determined",
};

/** One sentence per cell for the reports: the cell, the verdict, its evidence. */
export function bottleneckSentence(cell: CellStatistics): string {
  return `${cell.target} ${cell.arch} ${cell.probeLabel} at ${formatNumber(cell.memoryMb)} MB: ${verdicts[cell.bottleneck.kind]}: ${cell.bottleneck.evidence}.`;
}
