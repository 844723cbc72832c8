import { startCpuClock } from "../cpu-clock.js";
import { IntervalSampler } from "../interval-sampler.js";
import { mebibyte } from "../plan-fields.js";
import { ProbeError } from "../probe-error.js";
import type { ProbeOutcome } from "../probe-outcome.js";
import { startRetransmitCounter } from "../retransmits.js";
import type { RampStep } from "./connection-ramp.js";
import { headObject } from "./head-object.js";
import { type LatencySummary, summarizeLatencies } from "./latency-summary.js";
import type { S3GetEvent } from "./options.js";
import { RangedDownload } from "./ranged-download.js";
import { resolveObjectAddress } from "./s3-address.js";
import { explainAnonymousDenial, type S3CredentialProvider, S3RequestSigner } from "./s3-signer.js";
import { createKeepAliveAgent, type RequestTarget } from "./s3-transport.js";
import type { S3TransferDetail } from "./transfer-detail.js";
import { transferSummary } from "./transfer-summary.js";

/** The most connections `concurrency: "auto"` may open. */
const MAX_AUTO_CONNECTIONS = 64;

/**
 * `bytes`: received, always the object's size (an incomplete download is an error, never a
 * result); `seconds`: from the first ranged GET to the last byte (the HEAD is not counted).
 */
export interface S3GetDetail extends S3TransferDetail {
  probe: "s3-get";
  objectBytes: number;
  etag: string;
  /** The split of cpuSeconds: user space (TLS decryption, JS) and kernel (TCP receive, copies). */
  cpuUserSeconds: number;
  cpuSystemSeconds: number;
  /** Per part: time from its request to its response headers. */
  ttfb: LatencySummary;
  concurrency: number | "auto";
  /** Connections used: the fixed count, or the count the auto ramp settled on. */
  connections: number;
  rampSteps: RampStep[] | null;
  chunkBytes: number;
  parts: number;
  headSeconds: number;
  /** Client and credential set-up, HEAD and transfer: the seed study's timing of boto3's download. */
  wholeSeconds: number;
}

export interface S3ProbeDependencies {
  /** Credentials; the standard AWS chain when omitted. */
  credentials?: S3CredentialProvider;
  /** First retry delay (doubling after); 100 ms when omitted. */
  backoffBaseMs?: number;
  /** The random share of each retry's wait ceiling, in [0, 1) (full jitter); Math.random when omitted. */
  backoffRandom?: () => number;
}

export async function runS3GetProbe(
  event: S3GetEvent,
  dependencies: S3ProbeDependencies = {},
): Promise<ProbeOutcome<S3GetDetail>> {
  // the seed study timed boto3's whole download: client and credential set-up, HEAD, transfer
  const wholeStartMs = performance.now();
  const address = resolveObjectAddress(event);
  const chunkBytes = Math.round(event.chunkMib * mebibyte);
  const maxSockets = event.concurrency === "auto" ? MAX_AUTO_CONNECTIONS : event.concurrency;
  const target: RequestTarget = {
    address,
    agent: createKeepAliveAgent(address, maxSockets, event.caPem),
    requestTimeoutMs: event.requestTimeoutMs,
  };
  const signer = new S3RequestSigner(event.region, dependencies.credentials, {
    signRequest: event.signRequest,
  });
  const backoffBaseMs = dependencies.backoffBaseMs ?? 100;
  const backoffRandom = dependencies.backoffRandom ?? Math.random;
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(
    () =>
      deadline.abort(
        new ProbeError(
          "deadline",
          `s3-get s3://${event.bucket}/${event.key}: deadline of ${event.deadlineSeconds} s reached before the download completed`,
        ),
      ),
    event.deadlineSeconds * 1000,
  );
  // the HEAD runs on the agent's sockets: destroying them ends it at the deadline
  const onDeadline = () => target.agent.destroy();
  deadline.signal.addEventListener("abort", onDeadline, { once: true });
  try {
    const headStartMs = performance.now();
    const head = await headObject(target, signer, {
      maxRetries: event.maxRetries,
      backoffBaseMs,
      backoffRandom,
      signal: deadline.signal,
    });
    const headSeconds = (performance.now() - headStartMs) / 1000;

    const countRetransmits = await startRetransmitCounter();
    const sampler = new IntervalSampler(event.intervalMs);
    const download = new RangedDownload({
      target,
      caPem: event.caPem,
      signer,
      sizeBytes: head.sizeBytes,
      etag: head.etag,
      chunkBytes,
      concurrency: event.concurrency,
      maxAutoConnections: MAX_AUTO_CONNECTIONS,
      maxRetries: event.maxRetries,
      backoffBaseMs,
      backoffRandom,
      sampler,
      signal: deadline.signal,
      rampWindowMs: Math.max(event.intervalMs, 250),
    });
    const cpu = startCpuClock();
    const cpuSplitStart = process.cpuUsage();
    const startMs = performance.now();
    sampler.start(startMs);
    const result = await download.run();
    const endMs = performance.now();
    const cpuSeconds = cpu();
    const cpuSplit = process.cpuUsage(cpuSplitStart);
    const samples = sampler.stop(endMs);
    const seconds = (endMs - startMs) / 1000;
    const retransmits = await countRetransmits();
    const wholeSeconds = (endMs - wholeStartMs) / 1000;
    const { summary, rates } = transferSummary({
      bytes: result.bytes,
      seconds,
      cpuSeconds,
      retransmits,
      retries: result.retries,
      direction: "download",
      samples,
    });
    summary.wholeSeconds = wholeSeconds;
    const detail: S3GetDetail = {
      probe: "s3-get",
      bucket: event.bucket,
      key: event.key,
      endpoint: `${address.protocol}//${address.hostHeader}`,
      objectBytes: head.sizeBytes,
      etag: head.etag,
      bytes: result.bytes,
      seconds,
      bitsPerSecond: rates.bitsPerSecond,
      mbps: rates.mbps,
      cpuSeconds,
      cpuSecondsPerGib: rates.cpuSecondsPerGib,
      cpuUserSeconds: cpuSplit.user / 1e6,
      cpuSystemSeconds: cpuSplit.system / 1e6,
      retries: result.retries,
      retransmits,
      ttfb: summarizeLatencies(result.ttfbSeconds),
      samples,
      concurrency: event.concurrency,
      connections: result.connections,
      rampSteps: result.rampSteps,
      chunkBytes,
      parts: result.parts,
      headSeconds,
      wholeSeconds,
    };
    return { summary, detail };
  } catch (error) {
    throw explainAnonymousDenial(signer, error);
  } finally {
    clearTimeout(deadlineTimer);
    deadline.signal.removeEventListener("abort", onDeadline);
    target.agent.destroy();
  }
}
