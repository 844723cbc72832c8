import type { Iperf3Event } from "../../agent/event.js";
import type { IntervalSamples } from "../interval-sampler.js";
import type { ProbeOutcome } from "../probe-outcome.js";
import { bitsPerSecond, type ProbeSummary } from "../probe-summary.js";
import { runIperf3Client } from "./client.js";
import type { Iperf3JsonReport } from "./json-report.js";

/** The probe's detail: the `iperf3 -J` document plus our process CPU and the namespace retransmits. */
export type Iperf3ProbeDetail = Iperf3JsonReport & { cpuSeconds: number; retransmits: number | null };

/** The iperf3 probe: one test against an iperf3 server, summarised in the common shape. */
export async function runIperf3Probe(event: Iperf3Event): Promise<ProbeOutcome<Iperf3ProbeDetail>> {
  const result = await runIperf3Client({
    host: event.host,
    port: event.port,
    timeSeconds: event.timeSeconds,
    parallel: event.parallel,
    reverse: event.reverse,
    bidir: event.bidir,
    omitSeconds: event.omitSeconds,
    blockBytes: event.blockBytes,
    byteLimit: event.byteLimit,
    connectTimeoutMs: event.connectTimeoutMs,
    reportIntervalSeconds: event.reportIntervalSeconds,
    auth: event.auth,
    sampleIntervalMs: event.intervalMs,
  });
  const { end } = result.report;
  const direction = event.bidir ? "bidir" : event.reverse ? "download" : "upload";
  // "Delivered" throughput: sum_received, what the receiving side counted over its own
  // duration (the figure people quote from iperf3). Upload: the server's count; download:
  // ours; bidir: both directions (they share the receiver duration by the C client's rules).
  const bytes = end.sum_received.bytes + (end.sum_received_bidir_reverse?.bytes ?? 0);
  const seconds = end.sum_received.seconds;
  // samples come from our own counters: bytes we sent (upload), received (download), or both
  const samples =
    direction === "upload"
      ? result.sentSamples
      : direction === "download"
        ? result.receivedSamples
        : addSamples(result.sentSamples, result.receivedSamples);
  const summary: ProbeSummary = {
    bytes,
    seconds,
    bitsPerSecond: bitsPerSecond(bytes, seconds),
    cpuSeconds: result.cpuSeconds,
    retransmits: result.retransmits,
    retries: result.retries,
    direction,
    samples,
  };
  return {
    summary,
    detail: { ...result.report, cpuSeconds: result.cpuSeconds, retransmits: result.retransmits },
  };
}

/** Element-wise sum of two sample series started at the same moment. */
export function addSamples(a: IntervalSamples, b: IntervalSamples): IntervalSamples {
  const length = Math.max(a.bytes.length, b.bytes.length);
  const bytes = Array.from({ length }, (_, i) => (a.bytes[i] ?? 0) + (b.bytes[i] ?? 0));
  const longer = a.bytes.length >= b.bytes.length ? a : b;
  return { intervalSeconds: a.intervalSeconds, bytes, lastIntervalSeconds: longer.lastIntervalSeconds };
}
