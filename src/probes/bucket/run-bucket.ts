import { type Iperf3ClientResult, runIperf3Client } from "../iperf3/client.js";
import { compactBreakdown, endSides } from "../iperf3/summary-sides.js";
import type { ProbeOutcome } from "../probe-outcome.js";
import type { ProbeSummary } from "../probe-summary.js";
import type { BucketMeasurement, BucketTransfer } from "./measurement.js";
import type { BucketEvent } from "./options.js";

/** The probe's detail: the schedule as run (the samples are in the summary's `bucket`). */
export interface BucketProbeDetail {
  direction: "upload" | "download";
  transfers: Array<{ gapSeconds: number | null; idleSeconds: number | null; bytes: number; seconds: number }>;
}

/**
 * The bucket probe: a long transfer drains the token bucket, then each idle gap is followed by
 * a short transfer. Each transfer is one iperf3 test (its own streams, as a new request after
 * idle time would be); the idle time is measured from one test's close of its streams (the
 * server sends until then) to the next test's measured period, so the test's set-up counts as
 * idle, which it is for the link.
 */
export async function runBucketProbe(event: BucketEvent): Promise<ProbeOutcome<BucketProbeDetail>> {
  await sleepUntil(performance.now() + (event.restSeconds ?? Math.max(...event.gapsSeconds)) * 1000);
  const first = await transfer(event, event.transferSeconds);
  const results: Iperf3ClientResult[] = [first];
  const transfers: BucketTransfer[] = [
    { gapSeconds: null, idleSeconds: null, samples: first.samples, bytesBeforeStart: first.bytesBeforeStart },
  ];
  for (const gapSeconds of event.gapsSeconds) {
    const previousEndMs = (results[results.length - 1] as Iperf3ClientResult).streamsClosedMs;
    await sleepUntil(previousEndMs + gapSeconds * 1000);
    const result = await transfer(event, event.refillTransferSeconds);
    transfers.push({
      gapSeconds,
      idleSeconds: (result.measuredPeriodMs.from - previousEndMs) / 1000,
      samples: result.samples,
      bytesBeforeStart: result.bytesBeforeStart,
    });
    results.push(result);
  }
  const measurement: BucketMeasurement = { direction: event.direction, parallel: event.parallel, transfers };
  return {
    summary: summarize(event, first, results, measurement),
    detail: describe(event, results, transfers),
  };
}

function transfer(event: BucketEvent, timeSeconds: number): Promise<Iperf3ClientResult> {
  return runIperf3Client({
    host: event.host,
    port: event.port,
    timeSeconds,
    parallel: event.parallel,
    reverse: event.direction === "download",
    bidir: false,
    omitSeconds: 0,
    blockBytes: 131_072,
    byteLimit: 0,
    connectTimeoutMs: event.connectTimeoutMs,
    reportIntervalSeconds: 1,
    auth: event.auth,
    sampleIntervalMs: event.intervalMs,
  });
}

/**
 * The headline is the long transfer's, as an iperf3 probe of that length would report it; CPU and
 * retransmits cover every transfer, so the CPU goes over the sum of the transfers' measured
 * seconds (in `bucket`), never over the headline's `seconds` (results/record-rates.ts).
 */
function summarize(
  event: BucketEvent,
  first: Iperf3ClientResult,
  results: Iperf3ClientResult[],
  measurement: BucketMeasurement,
): ProbeSummary {
  const { sent, received } = endSides(first.report.end);
  const headline = event.direction === "upload" ? sent : received;
  const retransmits = results.map((r) => r.retransmits);
  return {
    bytes: headline.bytes,
    seconds: headline.seconds,
    bitsPerSecond: headline.bitsPerSecond,
    cpuSeconds: results.reduce((sum, r) => sum + r.cpuSeconds, 0),
    retransmits: retransmits.every((n) => n !== null) ? retransmits.reduce((sum, n) => sum + n, 0) : null,
    retries: results.reduce((sum, r) => sum + r.retries, 0),
    direction: event.direction,
    samples: first.samples,
    sent,
    received,
    iperf3: compactBreakdown(first.report),
    bucket: measurement,
  };
}

function describe(
  event: BucketEvent,
  results: Iperf3ClientResult[],
  transfers: BucketTransfer[],
): BucketProbeDetail {
  return {
    direction: event.direction,
    transfers: transfers.map((t, i) => ({
      gapSeconds: t.gapSeconds,
      idleSeconds: t.idleSeconds,
      bytes: t.samples.bytes.reduce((sum, b) => sum + b, t.bytesBeforeStart ?? 0),
      seconds: (results[i] as Iperf3ClientResult).samples.durationSeconds.reduce((sum, s) => sum + s, 0),
    })),
  };
}

function sleepUntil(atMs: number): Promise<void> {
  const delayMs = atMs - performance.now();
  return delayMs > 0 ? new Promise((resolve) => setTimeout(resolve, delayMs)) : Promise.resolve();
}
