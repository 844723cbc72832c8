import tls from "node:tls";
import { startCpuClock } from "../cpu-clock.js";
import { IntervalSampler } from "../interval-sampler.js";
import { isProbeError, ProbeError } from "../probe-error.js";
import type { ProbeOutcome } from "../probe-outcome.js";
import { bitsPerSecond, type ProbeSummary } from "../probe-summary.js";
import { startRetransmitCounter } from "../retransmits.js";
import { isIpHost, resolveObjectAddress, type S3ObjectAddress } from "../s3/s3-address.js";
import { isRetryableStatus, parseS3ErrorBody, s3ResponseError } from "../s3/s3-errors.js";
import {
  EMPTY_BODY_SHA256,
  explainAnonymousDenial,
  type S3CredentialProvider,
  S3RequestSigner,
} from "../s3/s3-signer.js";
import { timeIperf3Connects } from "./iperf3-connects.js";
import type { LatencyMeasurement, ModeMeasurement, RequestFailure, RequestTimes } from "./measurement.js";
import type { ConnectionMode, LatencyEvent } from "./options.js";
import {
  type ConnectionTarget,
  type ResponseMarks,
  type SetupMarks,
  TimedConnection,
} from "./timed-connection.js";

export interface LatencyDetail {
  probe: "latency";
  endpoint: string;
  bucket: string;
  key: string;
  /** The object's size as the server stated it (Content-Range or Content-Length). */
  objectBytes: number | null;
  rangeBytes: number | null;
  modes: Array<{ mode: ConnectionMode; requests: number; failedRequests: number; connectionsOpened: number }>;
}

export interface LatencyProbeDependencies {
  /** Credentials; the standard AWS chain when omitted. */
  credentials?: S3CredentialProvider;
}

/** Failed requests listed by message in a record (the count covers all of them). */
const LISTED_FAILURES = 5;

/**
 * A failure that another request would meet too (a missing object, a refused signature, a
 * wrong certificate): the probe stops and says why. Anything else (a reset, a stall, a 5xx) is
 * one slow or failed request among many, counted and kept out of the times.
 */
const FATAL_KINDS = new Set([
  "invalid-input",
  "not-found",
  "access-denied",
  "auth-failed",
  "signature-mismatch",
  "http-error",
  "protocol",
  "connection-refused",
  "unreachable",
  "deadline",
]);

/**
 * The latency probe: for each connection mode, `warmupRequests` GETs not counted, then
 * `requests` GETs one after another, each timed phase by phase; the CPU and wall time of the
 * measured ones per mode. Requests are signed before their clock starts (signing is the
 * function's CPU, counted in cpuSeconds, but no network phase).
 */
export async function runLatencyProbe(
  event: LatencyEvent,
  dependencies: LatencyProbeDependencies = {},
): Promise<ProbeOutcome<LatencyDetail>> {
  const address = resolveObjectAddress(event);
  const signer = new S3RequestSigner(event.region, dependencies.credentials, {
    signRequest: event.signRequest,
  });
  const target: ConnectionTarget = {
    protocol: address.protocol,
    hostname: address.hostname,
    port: address.port,
    // one context for every connection, as a client's agent keeps one: each new connection pays
    // for its handshake, not for parsing the CA bundle again
    secureContext:
      address.protocol === "https:" ? tls.createSecureContext(event.caPem ? { ca: event.caPem } : {}) : null,
    timeoutMs: event.requestTimeoutMs,
  };
  const deadlineAtMs = performance.now() + event.deadlineSeconds * 1000;
  const sampler = new IntervalSampler(event.intervalMs);
  const run: ModeRun = { event, address, signer, target, deadlineAtMs, objectBytes: null, sampler };
  const countRetransmits = await startRetransmitCounter();
  const cpu = startCpuClock();
  const startMs = performance.now();
  sampler.start(startMs);
  let measurement: LatencyMeasurement;
  try {
    const iperf3Connect = event.iperf3
      ? await timeIperf3Connects(event.iperf3, event.requestTimeoutMs)
      : null;
    const modes: ModeMeasurement[] = [];
    for (const mode of event.connections) modes.push(await measureMode(run, mode));
    measurement = {
      rangeBytes: event.bytes,
      warmupRequests: event.warmupRequests,
      hostIsName: !isIpHost(address.hostname),
      tls: address.protocol === "https:",
      modes,
      iperf3Connect,
    };
  } catch (error) {
    sampler.stop();
    throw explainAnonymousDenial(signer, error);
  }
  const endMs = performance.now();
  const samples = sampler.stop(endMs);
  const seconds = (endMs - startMs) / 1000;
  const bytes = samples.bytes.reduce((sum, b) => sum + b, 0);
  const summary: ProbeSummary = {
    bytes,
    seconds,
    bitsPerSecond: bitsPerSecond(bytes, seconds),
    cpuSeconds: cpu(),
    retransmits: await countRetransmits(),
    // a failed request is not retried (a retry would hide the latency being measured)
    retries: 0,
    direction: "download",
    samples,
    latency: measurement,
  };
  return {
    summary,
    detail: {
      probe: "latency",
      endpoint: `${address.protocol}//${address.hostHeader}`,
      bucket: event.bucket,
      key: event.key,
      objectBytes: run.objectBytes,
      rangeBytes: event.bytes,
      modes: measurement.modes.map((m) => ({
        mode: m.mode,
        requests: m.requests.lastByteSeconds.length,
        failedRequests: m.failedRequests,
        connectionsOpened: m.connectionsOpened,
      })),
    },
  };
}

interface ModeRun {
  event: LatencyEvent;
  address: S3ObjectAddress;
  signer: S3RequestSigner;
  target: ConnectionTarget;
  deadlineAtMs: number;
  objectBytes: number | null;
  sampler: IntervalSampler;
}

async function measureMode(run: ModeRun, mode: ConnectionMode): Promise<ModeMeasurement> {
  const { event } = run;
  const times = emptyTimes();
  const failures: RequestFailure[] = [];
  let failedRequests = 0;
  let connectionsOpened = 0;
  let connection: TimedConnection | null = null;
  let cpu = startCpuClock();
  let wallStartMs = performance.now();
  const rangeHeaders: Record<string, string> =
    event.bytes === null ? {} : { range: `bytes=0-${event.bytes - 1}` };
  try {
    for (let i = 0; i < event.warmupRequests + event.requests; i += 1) {
      const measured = i >= event.warmupRequests;
      if (i === event.warmupRequests) {
        cpu = startCpuClock();
        wallStartMs = performance.now();
      }
      if (performance.now() > run.deadlineAtMs)
        throw new ProbeError(
          "deadline",
          `latency s3://${event.bucket}/${event.key}: deadline of ${event.deadlineSeconds} s reached after ${times.lastByteSeconds.length} measured requests (${mode})`,
        );
      const headers = await run.signer.sign(run.address, {
        method: "GET",
        headers: rangeHeaders,
        payloadSha256: EMPTY_BODY_SHA256,
      });
      const startMs = performance.now();
      try {
        let setup: SetupMarks | null = null;
        if (mode === "new" || connection === null || !connection.usable) {
          connection?.close();
          const opened = await TimedConnection.open(run.target);
          connection = opened.connection;
          setup = opened.marks;
          if (measured) connectionsOpened += 1;
        }
        const response = await connection.get(run.address.path, headers);
        checkResponse(run, response);
        if (mode === "new") {
          connection.close();
          connection = null;
        }
        run.sampler.add(response.bodyBytes);
        if (measured) pushTimes(times, startMs, setup, response);
      } catch (error) {
        connection?.close();
        connection = null;
        if (isProbeError(error) && FATAL_KINDS.has(error.kind)) throw error;
        if (!measured) continue;
        failedRequests += 1;
        if (failures.length < LISTED_FAILURES) failures.push(describeFailure(error));
      }
    }
  } finally {
    connection?.close();
  }
  if (times.lastByteSeconds.length === 0) {
    const first = failures[0];
    throw new ProbeError(
      "retries-exhausted",
      `latency s3://${event.bucket}/${event.key}: every ${mode} request failed${first ? ` (first: ${first.kind}: ${first.message})` : ""}`,
    );
  }
  return {
    mode,
    requests: times,
    connectionsOpened,
    failedRequests,
    failures,
    cpuSeconds: cpu(),
    wallSeconds: (performance.now() - wallStartMs) / 1000,
  };
}

/** A 2xx of the size asked for; a retryable status fails the request, any other the probe. */
function checkResponse(run: ModeRun, response: ResponseMarks): void {
  const { status, headers } = response.head;
  if (response.errorBody !== null) {
    const error = s3ResponseError("GET", run.address, status, response.errorBody);
    const { code } = parseS3ErrorBody(response.errorBody);
    if (isRetryableStatus(status, code)) throw new TransientStatusError(error.message);
    throw error;
  }
  const total = headers["content-range"]?.match(/\/(\d+)$/)?.[1];
  run.objectBytes = total === undefined ? response.bodyBytes : Number(total);
  const asked = run.event.bytes;
  if (asked !== null && response.bodyBytes !== asked)
    throw new ProbeError(
      "invalid-input",
      `bytes: ${asked} asked for, but s3://${run.event.bucket}/${run.event.key} answered ${response.bodyBytes} (the object is ${run.objectBytes} bytes; use a larger object or a smaller bytes)`,
    );
}

class TransientStatusError extends Error {
  readonly code = "ETRANSIENTSTATUS";
}

function pushTimes(
  times: RequestTimes,
  startMs: number,
  setup: SetupMarks | null,
  response: ResponseMarks,
): void {
  const since = (ms: number | null) => (ms === null ? null : roundMicro((ms - startMs) / 1000));
  times.lookupEndSeconds.push(since(setup?.lookupEndMs ?? null));
  times.connectEndSeconds.push(since(setup?.connectEndMs ?? null));
  times.tlsEndSeconds.push(since(setup?.tlsEndMs ?? null));
  times.sentSeconds.push(roundMicro((response.sentMs - startMs) / 1000));
  times.firstByteSeconds.push(roundMicro((response.firstByteMs - startMs) / 1000));
  times.lastByteSeconds.push(roundMicro((response.lastByteMs - startMs) / 1000));
  times.bodyBytes.push(response.bodyBytes);
}

/** A microsecond is finer than any phase this probe times, and keeps records short. */
function roundMicro(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}

function emptyTimes(): RequestTimes {
  return {
    lookupEndSeconds: [],
    connectEndSeconds: [],
    tlsEndSeconds: [],
    sentSeconds: [],
    firstByteSeconds: [],
    lastByteSeconds: [],
    bodyBytes: [],
  };
}

function describeFailure(error: unknown): RequestFailure {
  if (isProbeError(error)) return { kind: error.kind, message: error.message };
  const code = (error as NodeJS.ErrnoException).code;
  return { kind: code ?? "error", message: (error as Error).message };
}
