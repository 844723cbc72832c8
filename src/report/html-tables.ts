import type { CellStatistics } from "../results/analysis.js";
import { type Column, summaryColumns } from "./summary-rows.js";

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** A column of an HTML table: its header and the cell's text, already escaped HTML. */
export interface HtmlColumn {
  header: string;
  html: (row: number) => string;
  /** wrap: left-aligned text that may break over lines (long prose in a table of numbers). */
  align: "left" | "right" | "wrap";
}

/**
 * A table that fits its box: on a wide screen a table; on a phone (CSS in the page) each row
 * becomes a card whose cells carry their header as a label (data-label), so nothing scrolls sideways.
 */
export function htmlTable(columns: HtmlColumn[], rowCount: number, className = ""): string {
  const cls = (c: HtmlColumn) =>
    c.align === "right" ? ' class="r"' : c.align === "wrap" ? ' class="wrap"' : "";
  const head = columns.map((c) => `<th${cls(c)}>${escapeHtml(c.header)}</th>`);
  const rows: string[] = [];
  for (let row = 0; row < rowCount; row++) {
    const cells = columns.map((c) => `<td data-label="${escapeHtml(c.header)}"${cls(c)}>${c.html(row)}</td>`);
    rows.push(`<tr>${cells.join("")}</tr>`);
  }
  return `<table class="${className}"><thead><tr>${head.join("")}</tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

/**
 * The summary split in two so each fits a 1,280 px window: the rates a reader came for, and the
 * rest (sent/received, seconds per object, retransmits, CPU, cost) behind a click.
 */
export const headlineHeaders = [
  "Memory (MB)",
  "n ok/planned",
  "Sustained (Mbit/s) [min-max]",
  "Burst (Mbit/s) [min-max]",
  "Burst length (s, MB)",
  "Effective (Mbit/s) [min-max]",
  "Quota (%)",
  "Failed",
];
export const detailHeaders = [
  "Memory (MB)",
  "Sent / received (Mbit/s)",
  "Per object: transfer / whole (s)",
  "Retransmits",
  "CPU used/share (cores)",
  "Cost ($/GB)",
];

/** The summary's columns by header, in the order asked; a header the summary lacks is an error. */
export function summaryColumnsNamed(headers: string[]): Column[] {
  return headers.map((header) => {
    const column = summaryColumns.find((c) => c.header === header);
    if (!column) throw new Error(`the summary has no column "${header}"`);
    return column;
  });
}

/** Summary columns as HTML columns over a list of cells, CPU-BOUND marked in red. */
export function cellColumns(columns: Column[], cells: CellStatistics[]): HtmlColumn[] {
  return columns.map((column) => ({
    header: column.header,
    align: column.align,
    html: (row) =>
      escapeHtml(column.text(cells[row] as CellStatistics)).replace(
        "CPU-BOUND",
        '<span class="cpu">CPU-BOUND</span>',
      ),
  }));
}
