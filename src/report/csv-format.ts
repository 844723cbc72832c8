import { fleetColumns } from "./fleet-section.js";
import { latencyCsvRows } from "./latency-section.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";
import { csvColumns, measuringCells } from "./summary-rows.js";

/** RFC 4180: quote fields holding a comma, quote or line break; double inner quotes. */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function renderCsv(model: ReportModel): string {
  const header = ["Results", ...csvColumns.map((c) => c.header), "Cell id"];
  const label = model.label ?? "measured";
  const rows = measuringCells(model).map((cell) => [
    label,
    ...csvColumns.map((c) => c.raw(cell)),
    cell.cellId,
  ]);
  return `${[header, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n")}\r\n`;
}

/** The fleet table (environments at once) as CSV; null when the run has no fleets. */
export function renderFleetCsv(model: ReportModel): string | null {
  if (model.fleets.length === 0) return null;
  const header = ["Results", ...fleetColumns.map((c) => c.header)];
  const label = model.label ?? "measured";
  const rows = model.fleets.map((point) => [label, ...fleetColumns.map((c) => c.raw(point))]);
  return `${[header, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n")}\r\n`;
}

/** The latency cells as CSV (latency.csv); null when the run has none. */
export function renderLatencyCsv(model: ReportModel): string | null {
  const rows = latencyCsvRows(model.analysis.latency);
  if (!rows) return null;
  const label = model.label ?? "measured";
  const [header, ...body] = rows;
  const withLabel = [["Results", ...(header ?? [])], ...body.map((row) => [label, ...row])];
  return `${withLabel.map((row) => row.map(csvField).join(",")).join("\r\n")}\r\n`;
}

export const csvFormat: ReportFormat = {
  name: "csv",
  description:
    "summary table as CSV (raw numbers, units in the headers); fleets.csv for environments at once, latency.csv for S3 GET latency",
  async render(model) {
    const fleets = renderFleetCsv(model);
    const latency = renderLatencyCsv(model);
    return [
      { fileName: "summary.csv", content: renderCsv(model) },
      ...(fleets ? [{ fileName: "fleets.csv", content: fleets }] : []),
      ...(latency ? [{ fileName: "latency.csv", content: latency }] : []),
    ];
  },
};
