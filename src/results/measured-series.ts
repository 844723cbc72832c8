import type { IntervalSamples } from "../probes/interval-sampler.js";

/**
 * One transfer measured elsewhere (a stock iperf3 test, a CSV of elapsed seconds and bytes), as
 * samples the bucket fit reads: each interval with its own start and length. The readers
 * (iperf3-output.ts, series-csv.ts) are pure and throw SeriesFormatError naming the field.
 */
export interface MeasuredSeries {
  /** Where it came from: the file, and which transfer in it when it holds several. */
  label: string;
  /** run-record: one of this tool's own records, fitted beside a published series. */
  format: "iperf3-json" | "iperf3-json-stream" | "csv" | "published" | "run-record";
  /** upload = the measuring side sent (iperf3 default); download = it received (-R); null: not said. */
  direction: "upload" | "download" | null;
  /** Which side counted the bytes: a sender counts what the kernel accepted, a receiver what arrived. */
  counted: "sender" | "receiver" | null;
  /** Parallel streams (iperf3 -P); null when the file does not say. */
  streams: number | null;
  samples: IntervalSamples;
}

/** Input that is not what a reader expected: the file, the field, what was expected and what was there. */
export class SeriesFormatError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`${file}: ${field}: expected ${expected}, found ${found}`);
    this.name = "SeriesFormatError";
  }
}

/** A short picture of a value for an error message. */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** How far an interval's start may lie from the previous one's end: 1 ms, or 1% of its length. */
const FOLLOW_SLACK_SECONDS = 1 / 1000;
const FOLLOW_SLACK_SHARE = 1 / 100;

/**
 * Samples from intervals that each state their start and length. The intervals must follow one
 * another (each starting where the previous ended, within 1 ms or 1% of its length): a gap would
 * be time the link ran that no sample holds.
 */
export function samplesFromIntervals(
  file: string,
  intervals: ReadonlyArray<{ startSeconds: number; durationSeconds: number; bytes: number; field: string }>,
): IntervalSamples {
  const samples: IntervalSamples = { intervalSeconds: 0, startSeconds: [], durationSeconds: [], bytes: [] };
  let end = 0;
  for (const [i, interval] of intervals.entries()) {
    const slack = Math.max(FOLLOW_SLACK_SECONDS, interval.durationSeconds * FOLLOW_SLACK_SHARE);
    if (i > 0 && Math.abs(interval.startSeconds - end) > slack)
      throw new SeriesFormatError(
        file,
        `${interval.field}.start`,
        `the previous interval's end (${end.toFixed(6)} s): intervals must follow one another`,
        `${interval.startSeconds}`,
      );
    samples.startSeconds.push(interval.startSeconds);
    samples.durationSeconds.push(interval.durationSeconds);
    samples.bytes.push(interval.bytes);
    end = interval.startSeconds + interval.durationSeconds;
  }
  const lengths = [...samples.durationSeconds].sort((a, b) => a - b);
  samples.intervalSeconds = lengths[Math.floor(lengths.length / 2)] ?? 0;
  return samples;
}
