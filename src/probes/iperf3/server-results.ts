import { buildResultsDocument } from "./results-document.js";

/** One stream as the server reports it in its results document (protocol doc 4.1). */
export interface StreamTotals {
  id: number;
  sends: boolean;
  bytes: number;
}

export interface ServerResultsInput {
  streams: StreamTotals[];
  /** Seconds from the start mark (TEST_START or omit end) to TEST_END. */
  durationSeconds: number;
  /** Process CPU over the test, microseconds, and the wall time it spans. */
  cpuUserMicros: number;
  cpuSystemMicros: number;
  wallMicros: number;
  serverOutputText?: string;
}

/** A finite, non-negative number: the 3.18+ reader rejects NaN/null, so a bad value becomes 0. */
function finite(value: number): number {
  return Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * The server's results JSON. Node has no TCP_INFO, so every retransmit count is -1 and
 * `sender_has_retransmits` is 0 when we sent (we cannot count) and -1 when we only received.
 */
export function buildServerResults(input: ServerResultsInput): Record<string, unknown> {
  const percent = (micros: number) => (input.wallMicros > 0 ? finite((micros / input.wallMicros) * 100) : 0);
  const user = percent(input.cpuUserMicros);
  const system = percent(input.cpuSystemMicros);
  const endTime = finite(input.durationSeconds);
  const document = buildResultsDocument({
    cpuUtilTotal: user + system,
    cpuUtilUser: user,
    cpuUtilSystem: system,
    senderHasRetransmits: input.streams.some((stream) => stream.sends) ? 0 : -1,
    streams: input.streams.map((stream) => ({
      id: stream.id,
      bytes: finite(stream.bytes),
      endTimeSeconds: endTime,
    })),
  });
  if (input.serverOutputText !== undefined) document.server_output_text = input.serverOutputText;
  return document;
}

/** iperf3's stream ids: 1, then 3, 4, 5, ... (2 is never used). */
export function streamId(index: number): number {
  return index === 0 ? 1 : index + 2;
}

/** What the one-line summary of a test needs (the server's own count of each stream). */
export interface TestSummaryInput {
  client: string;
  reverse: boolean;
  bidirectional: boolean;
  parallel: number;
  seconds: number;
  streams: Array<StreamTotals & { broken: boolean }>;
}

/** One line per test: client, direction, streams, bytes and rate, as the server counted them. */
export function formatTestSummary(input: TestSummaryInput): string {
  const mode = input.bidirectional
    ? "bidir"
    : input.reverse
      ? "reverse (server sends)"
      : "normal (client sends)";
  const part = (sends: boolean, label: string) => {
    const bytes = input.streams.filter((s) => s.sends === sends).reduce((sum, s) => sum + s.bytes, 0);
    const mbits = input.seconds > 0 ? (bytes * 8) / input.seconds / 1e6 : 0;
    return `${label} ${bytes} bytes = ${mbits.toFixed(1)} Mbit/s`;
  };
  const parts: string[] = [];
  if (!input.reverse || input.bidirectional) parts.push(part(false, "received"));
  if (input.reverse || input.bidirectional) parts.push(part(true, "sent"));
  const broken = input.streams.filter((s) => s.broken).length;
  return (
    `test from ${input.client}: ${mode}, ${input.parallel} stream(s), ${input.seconds.toFixed(3)} s: ` +
    `${parts.join(", ")}${broken > 0 ? ` (${broken} stream(s) broke)` : ""}`
  );
}
