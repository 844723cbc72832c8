import { type MeasuredSeries, SeriesFormatError, samplesFromIntervals, shown } from "./measured-series.js";

/**
 * The reader of a plain CSV of a transfer's samples (pure). A header row names the columns
 * (any order, case-insensitive; lines starting with # are comments):
 * - `elapsed_seconds` (or `seconds`): when the sample ended, seconds from the transfer's start;
 * - `bytes`: the bytes of that sample, or `cumulative_bytes`: all bytes up to its end;
 * - `repetition` (optional): one transfer per value; each repetition's elapsed time starts at 0.
 * Each sample runs from the previous row's elapsed time (0 for a repetition's first) to its own.
 */

export const CSV_COLUMNS = {
  elapsed: ["elapsed_seconds", "seconds"],
  bytes: ["bytes"],
  cumulative: ["cumulative_bytes"],
  repetition: ["repetition"],
} as const;

const allowedHeader = "elapsed_seconds (or seconds), and bytes or cumulative_bytes; optionally repetition";

function columnIndex(header: string[], names: readonly string[]): number {
  return header.findIndex((name) => names.includes(name));
}

export function readSeriesCsv(
  file: string,
  text: string,
  direction: MeasuredSeries["direction"],
): MeasuredSeries[] {
  const lines = text
    .split(/\r?\n/)
    .map((content, i) => ({ content: content.trim(), line: i + 1 }))
    .filter(({ content }) => content !== "" && !content.startsWith("#"));
  const [head, ...rows] = lines;
  if (!head)
    throw new SeriesFormatError(
      file,
      "(file)",
      `a CSV with a header row (${allowedHeader})`,
      "an empty file",
    );
  const header = head.content.split(",").map((name) => name.trim().toLowerCase());
  const elapsed = columnIndex(header, CSV_COLUMNS.elapsed);
  const bytes = columnIndex(header, CSV_COLUMNS.bytes);
  const cumulative = columnIndex(header, CSV_COLUMNS.cumulative);
  const repetition = columnIndex(header, CSV_COLUMNS.repetition);
  if (elapsed < 0 || bytes < 0 === cumulative < 0)
    throw new SeriesFormatError(file, `line ${head.line} (header)`, allowedHeader, shown(head.content));
  const byRepetition = new Map<string, Array<{ elapsed: number; bytes: number; line: number }>>();
  for (const { content, line } of rows) {
    const cells = content.split(",").map((cell) => cell.trim());
    if (cells.length !== header.length)
      throw new SeriesFormatError(
        file,
        `line ${line}`,
        `${header.length} columns (${header.join(",")})`,
        `${cells.length}`,
      );
    const numberIn = (index: number, name: string) => {
      const value = Number(cells[index]);
      if (cells[index] === "" || !Number.isFinite(value) || value < 0)
        throw new SeriesFormatError(
          file,
          `line ${line}, column ${name}`,
          "a non-negative number",
          shown(cells[index]),
        );
      return value;
    };
    const key = repetition < 0 ? "" : (cells[repetition] as string);
    const row = {
      elapsed: numberIn(elapsed, header[elapsed] as string),
      bytes: bytes >= 0 ? numberIn(bytes, "bytes") : numberIn(cumulative, "cumulative_bytes"),
      line,
    };
    byRepetition.set(key, [...(byRepetition.get(key) ?? []), row]);
  }
  if (byRepetition.size === 0)
    throw new SeriesFormatError(file, "(file)", "at least one row of samples", "only the header");
  return [...byRepetition.entries()].map(([key, samples]) => {
    let previousElapsed = 0;
    let previousTotal = 0;
    const intervals = samples.map((row) => {
      const name = `line ${row.line}, column ${header[elapsed]}`;
      if (!(row.elapsed > previousElapsed))
        throw new SeriesFormatError(
          file,
          name,
          `more than the row before (${previousElapsed} s): elapsed time only grows`,
          `${row.elapsed}`,
        );
      const sampleBytes = bytes >= 0 ? row.bytes : row.bytes - previousTotal;
      if (sampleBytes < 0)
        throw new SeriesFormatError(
          file,
          `line ${row.line}, column cumulative_bytes`,
          `at least the row before (${previousTotal})`,
          `${row.bytes}`,
        );
      const interval = {
        field: `line ${row.line}`,
        startSeconds: previousElapsed,
        durationSeconds: row.elapsed - previousElapsed,
        bytes: sampleBytes,
      };
      previousElapsed = row.elapsed;
      previousTotal = bytes >= 0 ? previousTotal + row.bytes : row.bytes;
      return interval;
    });
    return {
      label: byRepetition.size === 1 ? file : `${file} repetition ${key}`,
      format: "csv" as const,
      direction,
      counted: null,
      streams: null,
      samples: samplesFromIntervals(file, intervals),
    };
  });
}
