import { compareWithBaseline, renderBaselineCompact, renderBaselineText } from "./baseline-comparison.js";
import { bucketCompactLines, bucketTextLines } from "./bucket-section.js";
import { summaryNotes, summaryPivotLines, verdictLines } from "./console-summary.js";
import { fleetCompactLines, fleetTextLines } from "./fleet-section.js";
import { renderLatencyText } from "./latency-section.js";
import { renderPublishedSeriesText } from "./published-series-view.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";
import { streamsTextLines } from "./streams-section.js";
import { curveSentence, measuringCells, summaryColumns } from "./summary-rows.js";
import { textTable } from "./tables.js";
import { terminalWidthOffTty, wrap } from "./text-layout.js";

export interface TerminalOptions {
  /** Columns to fit (the terminal's, or 80 when not a terminal: outputWidth). */
  width?: number;
  /** The full table, one row per cell and every column (as in report.md and summary.csv). */
  wide?: boolean;
  /** Add the run beside the published study (what `run` prints after its summary). */
  baseline?: boolean;
}

/**
 * What the console shows of a run: the verdict first, then the summary, the fleets, the token
 * buckets and the streams sweeps, every line within `width` (the wide table excepted).
 */
export function renderTerminal(model: ReportModel, options: TerminalOptions = {}): string {
  const width = options.width ?? terminalWidthOffTty;
  const lines: string[] = [];
  if (model.label) lines.push(`[${model.label.toUpperCase()}] local lab results, not measured on AWS`);
  for (const notice of model.notices ?? []) lines.push(...wrap(`Note: ${notice}`, width, "  "));
  lines.push(...verdictLines(model, width), "");
  const latency = renderLatencyText(model.analysis.latency, width);
  if (latency.length > 0) lines.push(...latency, "");
  if (options.wide) lines.push(...wideTableLines(model));
  else lines.push(...summaryPivotLines(model, width), ...summaryNotes(model, width));
  lines.push(
    ...(options.wide ? fleetTextLines(model.fleets) : fleetCompactLines(model.fleets, width)),
    ...(options.wide
      ? bucketTextLines(model.analysis.buckets, width)
      : bucketCompactLines(model.analysis.buckets, width)),
    ...streamsTextLines(model.analysis.streams, width),
  );
  const a = model.analysis;
  lines.push(
    "",
    ...wrap(
      `${a.recordedInvocations} of ${a.plannedInvocations} invocations recorded, ${a.failedInvocations} failed.${model.completed ? "" : " Run incomplete."}` +
        (options.wide
          ? ""
          : " Every column: `lambda-netbench report RUN_DIR --wide`, report.md, summary.csv."),
      width,
    ),
  );
  const beside = options.baseline ? compareWithBaseline(model) : null;
  if (beside && beside.rows.length > 0)
    lines.push(
      "",
      ...(options.wide
        ? renderBaselineText(beside).trimEnd().split("\n")
        : renderBaselineCompact(beside, width)),
    );
  lines.push(...renderPublishedSeriesText(model.publishedSeries, width));
  return `${lines.join("\n")}\n`;
}

/** The table of every column, one row per cell: wide on purpose, for files and `--wide`. */
function wideTableLines(model: ReportModel): string[] {
  const rows = measuringCells(model).map((cell) => summaryColumns.map((c) => c.text(cell)));
  const [header = "", rule = "", ...body] = textTable(summaryColumns, rows);
  const lines = [header, rule];
  let previous = "";
  rows.forEach((row, i) => {
    const group = `${row[0]}|${row[1]}`;
    if (previous && group !== previous) lines.push("");
    previous = group;
    lines.push(body[i] as string);
  });
  lines.push("");
  for (const curve of model.analysis.curves) lines.push(curveSentence(curve, model.analysis.moveGigabytes));
  return lines;
}

export const terminalFormat: ReportFormat = {
  name: "text",
  description: "the verdict and the full summary table as plain text (summary.txt)",
  async render(model) {
    return [{ fileName: "summary.txt", content: renderTerminal(model, { wide: true }) }];
  },
};
