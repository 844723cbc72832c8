import { wrap } from "./text-layout.js";

/**
 * The one way a report or command lays out a table, as Markdown or as aligned plain text. A
 * cell's line break becomes a space in both, and Markdown escapes a cell's `|`, so a cell (a
 * profile's name, an error text, a fit's summary) stays one cell of one row whatever it holds.
 */
export interface TableColumn {
  header: string;
  /** Default: left. */
  align?: "left" | "right";
}

type Columns = readonly (TableColumn | string)[];

function named(columns: Columns): TableColumn[] {
  return columns.map((column) => (typeof column === "string" ? { header: column } : column));
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, " ");
}

/** A cell's text as one Markdown table cell. */
export function markdownCell(text: string): string {
  return oneLine(text).replaceAll("|", "\\|");
}

/** The Markdown table's lines: header, alignment row, one line per row (cells in column order). */
export function markdownTable(columns: Columns, rows: readonly (readonly string[])[]): string[] {
  const all = named(columns);
  const line = (cells: readonly string[]) => `| ${cells.map(markdownCell).join(" | ")} |`;
  return [
    line(all.map((column) => column.header)),
    `| ${all.map((column) => (column.align === "right" ? "---:" : ":---")).join(" | ")} |`,
    ...rows.map(line),
  ];
}

/**
 * A section of report.md: a blank line, its `## title`, then each block (a paragraph or a
 * table's lines) after a blank line of its own, so every section is spaced the same way.
 */
export function markdownSection(
  title: string,
  ...blocks: ReadonlyArray<string | readonly string[]>
): string[] {
  return [
    "",
    `## ${title}`,
    ...blocks.flatMap((block) => ["", ...(typeof block === "string" ? [block] : block)]),
  ];
}

export interface TextTableOptions {
  /** The header line (default true); a table without one has no rule either. */
  header?: boolean;
  /** The rule of dashes under the header (default true). */
  rule?: boolean;
  /** Put before every line (default none). */
  indent?: string;
  /**
   * Lines longer than this wrap at a space, continuing under the start of column `continueUnder`
   * (default the last), or four columns in when that column starts in the right half.
   */
  width?: number;
  continueUnder?: number;
}

/**
 * The plain-text table's lines: the header, a rule of dashes under each column (unless
 * `rule: false`), then one line per row, in row order; columns two spaces apart, each as wide
 * as its widest cell, right-aligned columns padded on the left, no trailing spaces.
 */
export function textTable(
  columns: Columns,
  rows: readonly (readonly string[])[],
  options: TextTableOptions = {},
): string[] {
  const all = named(columns);
  const header = options.header !== false;
  const body = rows.map((row) => all.map((_, i) => oneLine(row[i] ?? "")));
  const widths = all.map((column, i) =>
    Math.max(header ? column.header.length : 0, ...body.map((row) => (row[i] as string).length)),
  );
  const indent = options.indent ?? "";
  const line = (cells: readonly string[]) =>
    `${indent}${cells
      .map((text, i) =>
        all[i]?.align === "right" ? text.padStart(widths[i] as number) : text.padEnd(widths[i] as number),
      )
      .join("  ")}`.trimEnd();
  const lines = [
    ...(header ? [line(all.map((column) => column.header))] : []),
    ...(header && options.rule !== false
      ? [indent + widths.map((width) => "-".repeat(width)).join("  ")]
      : []),
    ...body.map(line),
  ];
  const width = options.width;
  if (width === undefined) return lines;
  const under = Math.min(options.continueUnder ?? all.length - 1, all.length - 1);
  const start = indent.length + widths.slice(0, under).reduce((sum, w) => sum + w + 2, 0);
  const continuation = " ".repeat(start <= width / 2 ? start : indent.length + 4);
  return lines.flatMap((text) =>
    text.length <= width ? [text] : wrap(text, width, continuation).map((part) => part.trimEnd()),
  );
}
