import type { CellStatistics } from "../results/analysis.js";
import type { LatencyCurve } from "../results/latency-cells.js";
import type { Spread } from "../results/statistics.js";
import { cellMarks, fewRepetitionsWarning, tooFewForSpread } from "./console-summary.js";
import { latencyVerdict } from "./latency-section.js";
import type { ReportModel } from "./report-model.js";
import { spreadMinimumRepetitions } from "./statistics-display.js";
import { measuringCells } from "./summary-rows.js";
import { buildVerdicts, type Verdict } from "./verdict.js";

/**
 * What `run --json` and `report RUN_DIR --json` print: the verdict and one entry per measuring
 * cell, rates in bit/s (raw units, like report.json). Documented field by field in docs/reports.md.
 */
export interface SummaryJson {
  runId: string;
  /** "emulated", "emulated, unshaped", or null for results measured on AWS. */
  label: string | null;
  completed: boolean;
  invocations: { planned: number; recorded: number; failed: number };
  verdicts: Verdict[];
  cells: SummaryJsonCell[];
  /**
   * The latency probe's curves: per target, architecture, request size and connection mode, the
   * time to last byte by memory size (seconds; a percentile n cannot support is null), with its
   * verdict. Empty without latency cells.
   */
  latency: Array<LatencyCurve & { verdict: string }>;
  /** The same warnings the console prints (too few repetitions for a spread). */
  warnings: string[];
}

export interface SummaryJsonRate {
  median: number;
  n: number;
  /** Only from n >= 3: below that there is no spread to report. */
  min: number | null;
  max: number | null;
}

export interface SummaryJsonCell {
  cellId: string;
  target: string;
  arch: string;
  probe: string;
  probeLabel: string;
  memoryMb: number;
  plannedRepetitions: number;
  sustainedBitsPerSecond: SummaryJsonRate | null;
  /** Why there is no sustained rate (distinct reasons); empty when there is one. */
  sustainedMissing: string[];
  /** The burst's peak; with `burstBounds.peak` at-least, a lower bound (results/burst-figures.ts). */
  burstBitsPerSecond: SummaryJsonRate | null;
  /** Seconds at the peak; with `burstBounds.seconds` at-most, an upper bound. */
  burstSeconds: number | null;
  /** Bytes above the sustained rate (median). */
  burstBytes: number | null;
  burstBounds: CellStatistics["burstBounds"];
  /** The whole transfer's rate, burst included ("avg incl. burst"). */
  averageBitsPerSecond: SummaryJsonRate | null;
  quotaPercent: number | null;
  /** The limit in force the sustained rate was checked against, payload bit/s; null: unconfirmed. */
  ceilingBitsPerSecond: number | null;
  /** Repetitions that ended inside their burst (no sustained rate: see sustainedMissing). */
  endedInsideBurst: number;
  cpuBound: boolean | null;
  failures: Record<string, number>;
  /** The console's marks for this cell ("*" n<3, "c" CPU-bound, "!" incomplete ...). */
  marks: string[];
}

function rateOf(spread: Spread | null): SummaryJsonRate | null {
  if (!spread) return null;
  const spreadShown = spread.n >= spreadMinimumRepetitions;
  return {
    median: spread.median,
    n: spread.n,
    min: spreadShown ? spread.min : null,
    max: spreadShown ? spread.max : null,
  };
}

function cellOf(cell: CellStatistics): SummaryJsonCell {
  return {
    cellId: cell.cellId,
    target: cell.target,
    arch: cell.arch,
    probe: cell.probe,
    probeLabel: cell.probeLabel,
    memoryMb: cell.memoryMb,
    plannedRepetitions: cell.plannedRepetitions,
    sustainedBitsPerSecond: rateOf(cell.sustained),
    sustainedMissing: cell.sustainedNullReasons,
    burstBitsPerSecond: rateOf(cell.burst),
    burstSeconds: cell.burstSeconds?.median ?? null,
    burstBytes: cell.burstBytes?.median ?? null,
    burstBounds: cell.burstBounds,
    averageBitsPerSecond: rateOf(cell.effective),
    quotaPercent: cell.quotaPercent,
    ceilingBitsPerSecond: cell.ceiling?.bitsPerSecond ?? null,
    endedInsideBurst: cell.insideBurst.repetitions,
    cpuBound: cell.cpuBound,
    failures: cell.failures,
    marks: cellMarks.filter((m) => m.applies(cell)).map((m) => m.mark),
  };
}

export function buildSummaryJson(model: ReportModel): SummaryJson {
  const cells = measuringCells(model);
  const few = tooFewForSpread(cells);
  const a = model.analysis;
  return {
    runId: model.runId,
    label: model.label,
    completed: model.completed,
    invocations: {
      planned: a.plannedInvocations,
      recorded: a.recordedInvocations,
      failed: a.failedInvocations,
    },
    verdicts: buildVerdicts(model),
    cells: cells.map(cellOf),
    latency: a.latency.curves.map((curve) => ({ ...curve, verdict: latencyVerdict(curve) })),
    warnings: few.length > 0 ? [fewRepetitionsWarning(model, cells, few)] : [],
  };
}

export function renderSummaryJson(model: ReportModel): string {
  return `${JSON.stringify(buildSummaryJson(model), null, 2)}\n`;
}
