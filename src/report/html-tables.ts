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

/** Columns the page shows its own way: one table per target, the probe with its colour. */
const keyHeaders = new Set(["Target", "Probe", "Arch"]);

/** The summary's columns that wait behind a click: how it was measured rather than the answer. */
export const detailHeaders = [
  "Sent / received (Mbit/s)",
  "Per object: transfer / whole (s)",
  "Retransmits",
  "CPU used/share (cores)",
  "Cost ($/GB)",
];

/**
 * The summary split in two so each table fits a 1,280 px window: the rates a reader came for (every
 * column not named a detail, so a column added to the summary shows up here), and the details;
 * memory in both, as the row's key.
 */
export function splitSummaryColumns(): { headline: Column[]; detail: Column[] } {
  const shown = summaryColumns.filter((c) => !keyHeaders.has(c.header));
  const details = new Set(detailHeaders);
  const memory = shown.filter((c) => c.header.startsWith("Memory"));
  return {
    headline: shown.filter((c) => !details.has(c.header)),
    detail: [...memory, ...shown.filter((c) => details.has(c.header))],
  };
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
