import type { ProbeOutcome } from "../probe-outcome.js";
import type { ProbeSummary } from "../probe-summary.js";
import { runIperf3Client } from "./client.js";
import type { Iperf3JsonReport } from "./json-report.js";
import type { Iperf3Event } from "./options.js";
import { compactBreakdown, endSides } from "./summary-sides.js";

/** The probe's detail: the `iperf3 -J` document plus our process CPU and the namespace retransmits. */
export type Iperf3ProbeDetail = Iperf3JsonReport & { cpuSeconds: number; retransmits: number | null };

/** The iperf3 probe: one test against an iperf3 server, summarised in the common shape. */
export async function runIperf3Probe(event: Iperf3Event): Promise<ProbeOutcome<Iperf3ProbeDetail>> {
  if (event.restSeconds > 0) await new Promise((resolve) => setTimeout(resolve, event.restSeconds * 1000));
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
  const { sent, received } = endSides(end);
  // The headline figure. Upload: the sender side (sum_sent), as the seed study reported it;
  // download: sum_received, what we counted as the receiver; bidir: both directions' received
  // sums (they share the receiver duration by the C client's rules). Both sides stay in the record.
  const headline = direction === "upload" ? sent : received;
  const summary: ProbeSummary = {
    bytes: headline.bytes,
    seconds: headline.seconds,
    bitsPerSecond: headline.bitsPerSecond,
    cpuSeconds: result.cpuSeconds,
    retransmits: result.retransmits,
    retries: result.retries,
    direction,
    // our own counters: bytes we sent (upload), received (download), or both (bidir)
    samples: result.samples,
    sent,
    received,
    iperf3: compactBreakdown(result.report),
  };
  return {
    summary,
    detail: { ...result.report, cpuSeconds: result.cpuSeconds, retransmits: result.retransmits },
  };
}
