/**
 * Plain-text layout that fits a width: wrapped paragraphs and tables whose value columns (the
 * memory sizes) split into as many blocks as the width needs. Pure.
 */

/** Off a terminal (logs, pipes, files) without COLUMNS: wide enough for a log, narrow enough to read. */
export const terminalWidthOffTty = 100;

/**
 * The width to lay out for: the terminal's (a TTY), else COLUMNS when it is set (as shells and
 * CI runners export it), else 100 columns. Never under 40.
 */
export function outputWidth(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
  columns: string | undefined = process.env.COLUMNS,
): number {
  if (stream.isTTY && stream.columns) return Math.max(40, stream.columns);
  const fromEnvironment = Number(columns);
  return Number.isInteger(fromEnvironment) && fromEnvironment > 0
    ? Math.max(40, fromEnvironment)
    : terminalWidthOffTty;
}

/** Words wrapped to `width`; continuation lines start with `indent` (a word longer than the line stays whole). */
export function wrap(text: string, width: number, indent = ""): string[] {
  const lead = /^ */.exec(text)?.[0] ?? "";
  const lines: string[] = [];
  let line = lead;
  for (const word of text.slice(lead.length).split(" ")) {
    const next = line.trim() === "" ? `${line}${word}` : `${line} ${word}`;
    if (next.length > width && line.trim() !== "") {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line.trim() !== "") lines.push(line);
  return lines;
}

/** Each line wrapped to `width`, a wrapped line continuing two columns in from where it started. */
export function wrapEach(lines: string[], width: number): string[] {
  return lines.flatMap((line) => wrap(line, width, `${/^ */.exec(line)?.[0] ?? ""}  `));
}

export interface PivotRow {
  label: string;
  /** One text per value column ("" for none). */
  cells: string[];
}

export interface PivotBlock {
  heading: string;
  rows: PivotRow[];
}

/**
 * Blocks (one per target) of rows (label + right-aligned value cells) under `columns` headers.
 * When all value columns do not fit the width beside the label column, they are split into
 * consecutive slices, each printed with its own header, so no line is wider than `width`.
 */
export function renderPivot(
  columns: string[],
  blocks: PivotBlock[],
  width: number,
  labelHeader = "",
): string[] {
  const indent = "  ";
  const labelWidth = Math.max(
    labelHeader.length,
    ...blocks.flatMap((b) => b.rows.map((r) => r.label.length)),
  );
  const columnWidths = columns.map((header, i) =>
    Math.max(header.length, ...blocks.flatMap((b) => b.rows.map((r) => (r.cells[i] ?? "").length))),
  );
  const slices = sliceColumns(columnWidths, width - indent.length - labelWidth);
  const out: string[] = [];
  for (const block of blocks) {
    out.push(...wrap(block.heading, width, "  "));
    for (const slice of slices) {
      const line = (label: string, texts: string[]) =>
        `${indent}${label.padEnd(labelWidth)}${slice
          .map((i) => `  ${(texts[i] ?? "").padStart(columnWidths[i] as number)}`)
          .join("")}`.trimEnd();
      out.push(line(labelHeader, columns));
      for (const row of block.rows) out.push(line(row.label, row.cells));
    }
    out.push("");
  }
  return out;
}

/** Consecutive column indexes per slice, as many per slice as fit in `room` (at least one). */
function sliceColumns(widths: number[], room: number): number[][] {
  const slices: number[][] = [];
  let current: number[] = [];
  let used = 0;
  widths.forEach((w, i) => {
    if (current.length > 0 && used + 2 + w > room) {
      slices.push(current);
      current = [];
      used = 0;
    }
    current.push(i);
    used += 2 + w;
  });
  if (current.length > 0) slices.push(current);
  // even slices read better than a full one and a stub: 6 columns in 5 + 1 become 3 + 3
  if (slices.length === 1) return slices;
  const perSlice = Math.ceil(widths.length / slices.length);
  const even = Array.from({ length: slices.length }, (_, s) =>
    widths.map((_, i) => i).slice(s * perSlice, (s + 1) * perSlice),
  ).filter((s) => s.length > 0);
  const fits = even.every((s) => s.reduce((sum, i) => sum + 2 + (widths[i] as number), 0) <= room);
  return fits ? even : slices;
}
