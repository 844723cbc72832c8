import { type MeasuredSeries, SeriesFormatError, samplesFromIntervals, shown } from "./measured-series.js";

/**
 * Readers of stock iperf3 3.x output (pure). `-J` is one JSON document per test: `start` (with
 * `test_start.reverse`, `num_streams`), `intervals` (each with a `sum` holding its own `start`,
 * `seconds` and `bytes`, and from 3.1 on `sender`), `end`. `--json-stream` (3.17+) is one JSON
 * object per line: `{"event": "start" | "interval" | "end" | "error", "data": ...}`. A file may
 * hold several tests one after another (e.g. `iperf3 -J >> runs.json` in a loop, or several
 * json-stream runs): each is one transfer. Only what the fit needs is read; every field it reads
 * is checked, and an error names it.
 */

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function field(file: string, parent: Json, path: string, key: string): Json {
  if (!isObject(parent)) throw new SeriesFormatError(file, path, "an object", shown(parent));
  return parent[key];
}

function numberAt(file: string, value: Json, path: string, rule: "non-negative" | "positive"): number {
  const ok =
    typeof value === "number" && Number.isFinite(value) && (rule === "positive" ? value > 0 : value >= 0);
  if (!ok) throw new SeriesFormatError(file, path, `a ${rule} number`, shown(value));
  return value as number;
}

/** One test's document (the `-J` shape; json-stream events are gathered into it). */
function seriesFromDocument(
  file: string,
  label: string,
  doc: Json,
  format: MeasuredSeries["format"],
  at: string,
): MeasuredSeries {
  const name = (key: string) => (at === "" ? key : `${at}: ${key}`);
  if (!isObject(doc))
    throw new SeriesFormatError(
      file,
      at || "(document)",
      "an iperf3 -J object (start, intervals, end)",
      shown(doc),
    );
  const error = doc.error;
  if (typeof error === "string" && (!Array.isArray(doc.intervals) || doc.intervals.length === 0))
    throw new SeriesFormatError(
      file,
      name("error"),
      "a test that ran (iperf3 reported this error)",
      // iperf3's own message says what went wrong: shown whole
      JSON.stringify(error),
    );
  const start = doc.start;
  if (!isObject(start))
    throw new SeriesFormatError(
      file,
      name("start"),
      "the iperf3 -J start object (is this iperf3 -J output?)",
      shown(start),
    );
  const testStart = field(file, start, name("start"), "test_start");
  if (!isObject(testStart))
    throw new SeriesFormatError(file, name("start.test_start"), "an object (iperf3 3.x)", shown(testStart));
  const protocol = testStart.protocol;
  if (protocol !== undefined && protocol !== "TCP")
    throw new SeriesFormatError(
      file,
      name("start.test_start.protocol"),
      '"TCP" (the bucket is fitted to TCP transfers)',
      shown(protocol),
    );
  if (testStart.bidir === 1 || testStart.bidir === true)
    throw new SeriesFormatError(
      file,
      name("start.test_start.bidir"),
      "0: one direction per test (--bidir mixes two)",
      shown(testStart.bidir),
    );
  const reverse = testStart.reverse;
  if (reverse !== undefined && reverse !== 0 && reverse !== 1 && typeof reverse !== "boolean")
    throw new SeriesFormatError(file, name("start.test_start.reverse"), "0 or 1", shown(reverse));
  const streamsValue = testStart.num_streams;
  const streams =
    streamsValue === undefined
      ? null
      : numberAt(file, streamsValue, name("start.test_start.num_streams"), "positive");
  const intervals = doc.intervals;
  if (!Array.isArray(intervals))
    throw new SeriesFormatError(file, name("intervals"), "an array of intervals", shown(intervals));
  if (intervals.length === 0)
    throw new SeriesFormatError(file, name("intervals"), "at least one interval", "none");
  let counted: MeasuredSeries["counted"] = null;
  // with -O, the omitted intervals come first and the counted ones restart their clock at 0:
  // both are kept on one time line (the omitted seconds hold the burst)
  let offsetSeconds = 0;
  let previous: { omitted: boolean; endSeconds: number } | null = null;
  const rows = intervals.map((interval, i) => {
    const path = name(`intervals[${i}].sum`);
    const sum = field(file, interval, name(`intervals[${i}]`), "sum");
    if (!isObject(sum))
      throw new SeriesFormatError(file, path, "an object (the interval's sum over its streams)", shown(sum));
    const sender = sum.sender;
    if (typeof sender === "boolean") counted = sender ? "sender" : "receiver";
    const omitted = sum.omitted === true;
    const startSeconds = numberAt(file, sum.start, `${path}.start`, "non-negative");
    const durationSeconds = numberAt(file, sum.seconds, `${path}.seconds`, "positive");
    if (previous?.omitted && !omitted) offsetSeconds = previous.endSeconds - startSeconds;
    previous = { omitted, endSeconds: startSeconds + offsetSeconds + durationSeconds };
    return {
      field: path,
      startSeconds: startSeconds + offsetSeconds,
      durationSeconds,
      bytes: numberAt(file, sum.bytes, `${path}.bytes`, "non-negative"),
    };
  });
  return {
    label,
    format,
    direction: reverse === 1 || reverse === true ? "download" : "upload",
    counted,
    streams,
    samples: samplesFromIntervals(file, rows),
  };
}

/**
 * The JSON values of a text that holds one or more one after another (whitespace between),
 * with the line each starts on. Throws on text that is not JSON, naming the line.
 */
function jsonValues(file: string, text: string): Array<{ value: Json; line: number }> {
  const values: Array<{ value: Json; line: number }> = [];
  let i = 0;
  let line = 1;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i] as string)) {
      if (text[i] === "\n") line += 1;
      i += 1;
    }
  };
  skipSpace();
  while (i < text.length) {
    const from = i;
    const fromLine = line;
    if (text[i] !== "{" && text[i] !== "[")
      throw new SeriesFormatError(
        file,
        `line ${line}`,
        "a JSON object (iperf3 -J or --json-stream output)",
        shown(text.slice(i, i + 30)),
      );
    let depth = 0;
    let inString = false;
    for (; i < text.length; i += 1) {
      const c = text[i];
      if (c === "\n") line += 1;
      if (inString) {
        if (c === "\\") i += 1;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{" || c === "[") depth += 1;
      else if (c === "}" || c === "]") {
        depth -= 1;
        if (depth === 0) {
          i += 1;
          break;
        }
      }
    }
    try {
      values.push({ value: JSON.parse(text.slice(from, i)), line: fromLine });
    } catch (error) {
      throw new SeriesFormatError(file, `line ${fromLine}`, "valid JSON", (error as Error).message);
    }
    skipSpace();
  }
  return values;
}

function isStreamEvent(value: Json): boolean {
  return isObject(value) && typeof value.event === "string" && "data" in value;
}

/** json-stream events gathered into one `-J`-shaped document per test (a new `start` begins the next). */
function streamDocuments(
  file: string,
  events: Array<{ value: Json; line: number }>,
): Array<{ doc: Json; line: number }> {
  const docs: Array<{ doc: Record<string, Json>; line: number }> = [];
  for (const { value, line } of events) {
    if (!isStreamEvent(value))
      throw new SeriesFormatError(
        file,
        `line ${line}`,
        'a json-stream event ({"event": ..., "data": ...})',
        shown(value),
      );
    const { event, data } = value as { event: string; data: Json };
    if (event === "start") {
      docs.push({ doc: { start: data, intervals: [] }, line });
      continue;
    }
    const current = docs[docs.length - 1];
    if (!current)
      throw new SeriesFormatError(
        file,
        `line ${line}: event`,
        '"start" first (each test begins with its start event)',
        shown(event),
      );
    if (event === "interval") (current.doc.intervals as Json[]).push(data);
    else if (event === "end") current.doc.end = data;
    else if (event === "error") current.doc.error = typeof data === "string" ? data : JSON.stringify(data);
    // other events (e.g. server_output_text) carry nothing the fit needs
  }
  return docs;
}

/** True when the text looks like JSON (what the iperf3 readers take) rather than CSV. */
export function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
}

/** The transfers in a file of iperf3 `-J` or `--json-stream` output, one per test. */
export function readIperf3Output(file: string, text: string): MeasuredSeries[] {
  const values = jsonValues(file, text);
  if (values.length === 0)
    throw new SeriesFormatError(file, "(file)", "iperf3 -J or --json-stream output", "an empty file");
  const first = values[0]?.value;
  if (isStreamEvent(first)) {
    const docs = streamDocuments(file, values);
    return docs.map(({ doc, line }, n) =>
      seriesFromDocument(
        file,
        docs.length === 1 ? file : `${file} test ${n + 1}`,
        doc,
        "iperf3-json-stream",
        `test from line ${line}`,
      ),
    );
  }
  // one document, several after another, or an array of them
  const docs =
    values.length === 1 && Array.isArray(first)
      ? first.map((doc, n) => ({ doc, at: `[${n}]` }))
      : values.map(({ value, line }) => ({
          doc: value,
          at: values.length === 1 ? "" : `test from line ${line}`,
        }));
  return docs.map(({ doc, at }, n) =>
    seriesFromDocument(file, docs.length === 1 ? file : `${file} test ${n + 1}`, doc, "iperf3-json", at),
  );
}
