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
 * The plain-text table's lines: the header, a rule of dashes under each column (unless
 * `rule: false`), then one line per row, in row order; columns two spaces apart, each as wide
 * as its widest cell, right-aligned columns padded on the left, no trailing spaces.
 */
export function textTable(
  columns: Columns,
  rows: readonly (readonly string[])[],
  options: { rule?: boolean } = {},
): string[] {
  const all = named(columns);
  const body = rows.map((row) => all.map((_, i) => oneLine(row[i] ?? "")));
  const widths = all.map((column, i) =>
    Math.max(column.header.length, ...body.map((row) => (row[i] as string).length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((text, i) =>
        all[i]?.align === "right" ? text.padStart(widths[i] as number) : text.padEnd(widths[i] as number),
      )
      .join("  ")
      .trimEnd();
  return [
    line(all.map((column) => column.header)),
    ...(options.rule === false ? [] : [widths.map((width) => "-".repeat(width)).join("  ")]),
    ...body.map(line),
  ];
}
