import { fleetTextLines } from "./fleet-section.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";
import { curveSentence, measuringCells, summaryColumns } from "./summary-rows.js";

/** The summary table for a terminal: aligned columns, a label line when emulated. */
export function renderTerminal(model: ReportModel): string {
  const lines: string[] = [];
  if (model.label) lines.push(`[${model.label.toUpperCase()}] local lab results, not measured on AWS`);
  const header = summaryColumns.map((c) => c.header);
  const rows = measuringCells(model).map((cell) => summaryColumns.map((c) => c.text(cell)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const format = (cells: string[]) =>
    cells
      .map((text, i) =>
        summaryColumns[i]?.align === "right"
          ? text.padStart(widths[i] as number)
          : text.padEnd(widths[i] as number),
      )
      .join("  ")
      .trimEnd();
  lines.push(format(header), widths.map((w) => "-".repeat(w)).join("  "));
  let previous = "";
  for (const row of rows) {
    const group = `${row[0]}|${row[1]}`;
    if (previous && group !== previous) lines.push("");
    previous = group;
    lines.push(format(row));
  }
  lines.push("");
  for (const curve of model.analysis.curves) lines.push(curveSentence(curve, model.analysis.moveGigabytes));
  lines.push(...fleetTextLines(model.fleets));
  const a = model.analysis;
  lines.push(
    "",
    `${a.recordedInvocations} of ${a.plannedInvocations} invocations recorded, ${a.failedInvocations} failed.${model.completed ? "" : " Run incomplete."}`,
  );
  return `${lines.join("\n")}\n`;
}

export const terminalFormat: ReportFormat = {
  name: "text",
  description: "summary table as plain text",
  async render(model) {
    return [{ fileName: "summary.txt", content: renderTerminal(model) }];
  },
};
