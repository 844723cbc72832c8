import { looksLikeJson, readIperf3Output } from "./iperf3-output.js";
import { type MeasuredSeries, SeriesFormatError, shown } from "./measured-series.js";
import { readSeriesCsv } from "./series-csv.js";

/**
 * Which reader a file of measurements takes (pure): JSON is iperf3 `-J` or `--json-stream`
 * output, anything else a samples CSV. iperf3's own text output (no `-J`) is the likeliest wrong
 * input, so it is named as such instead of being read as a CSV without a header.
 */

/** Lines iperf3 prints first in its text output: the client's, the server's, its usage and errors. */
const IPERF3_TEXT = /^(Connecting to host |Server listening on |-{5,}$|Usage: iperf3 |iperf3: |\[ ID\] )/;

export function readSeriesFile(
  file: string,
  text: string,
  direction: MeasuredSeries["direction"],
): MeasuredSeries[] {
  if (text.trim() === "")
    throw new SeriesFormatError(
      file,
      "(file)",
      "iperf3 -J or --json-stream output, or a CSV of elapsed_seconds,bytes",
      "an empty file",
    );
  if (looksLikeJson(text)) return readIperf3Output(file, text);
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => line.trim() !== "");
  const first = (lines[index] as string).trim();
  if (IPERF3_TEXT.test(first))
    throw new SeriesFormatError(
      file,
      `line ${index + 1}`,
      "iperf3 -J or --json-stream output (this is iperf3's text output: run the test again with -J)",
      shown(first),
    );
  return readSeriesCsv(file, text, direction);
}
