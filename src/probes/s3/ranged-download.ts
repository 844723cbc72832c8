import type { IntervalSampler } from "../interval-sampler.js";
import { ProbeError } from "../probe-error.js";
import { backoffDelayMs } from "../retry-backoff.js";
import { ConnectionRamp, type RampStep } from "./connection-ramp.js";
import { Http1Connection } from "./http1-connection.js";
import { isRetryableStatus, parseS3ErrorBody, s3ResponseError } from "./s3-errors.js";
import { EMPTY_BODY_SHA256, type S3RequestSigner } from "./s3-signer.js";
import type { RequestTarget } from "./s3-transport.js";

/**
 * Downloads one object as parallel ranged GETs into a null sink: body chunks are counted and
 * dropped, never copied or kept. Each part is requested with If-Match on the HEAD's ETag.
 * A failed request (reset, 5xx, short body, stall) is retried with backoff for the bytes of
 * its part still missing, so every byte is received exactly once; the download either ends
 * with exactly the object's size or fails.
 */
export interface RangedDownloadOptions {
  target: RequestTarget;
  /** PEM CA bundle to trust (a lab server's CA), else the system's. */
  caPem: string | undefined;
  signer: S3RequestSigner;
  sizeBytes: number;
  etag: string;
  chunkBytes: number;
  /** A fixed number of connections, or "auto" (ConnectionRamp). */
  concurrency: number | "auto";
  maxAutoConnections: number;
  maxRetries: number;
  backoffBaseMs: number;
  /** The random share of each wait's ceiling (retry-backoff.ts). */
  backoffRandom: () => number;
  sampler: IntervalSampler;
  /** Aborts the download (the probe's deadline); its reason is the error thrown. */
  signal: AbortSignal;
  /** Length of one observation window of the auto ramp. */
  rampWindowMs: number;
}

export interface RangedDownloadResult {
  bytes: number;
  retries: number;
  parts: number;
  /** Time from sending each part's first request to its response headers, in seconds. */
  ttfbSeconds: number[];
  /** Connections used (the fixed count, or the count the auto ramp chose). */
  connections: number;
  rampSteps: RampStep[] | null;
}

interface Part {
  start: number;
  endInclusive: number;
  receivedBytes: number;
  retries: number;
}

/** One failed attempt; `retryable` says whether another try of the missing bytes may succeed. */
class AttemptFailure extends Error {
  constructor(
    readonly retryable: boolean,
    readonly error: Error,
  ) {
    super(error.message);
  }
}

export class RangedDownload {
  private readonly parts: Part[] = [];
  private nextPart = 0;
  private bytes = 0;
  private retries = 0;
  private readonly ttfbSeconds: number[] = [];
  private readonly connections = new Set<Http1Connection>();
  private failure: Error | undefined;
  private targetConnections: number;
  private runningWorkers = 0;
  private startedWorkers = 0;
  private readonly ramp: ConnectionRamp | null;
  private finish: (() => void) | undefined;

  constructor(private readonly options: RangedDownloadOptions) {
    for (let start = 0; start < options.sizeBytes; start += options.chunkBytes) {
      const endInclusive = Math.min(options.sizeBytes, start + options.chunkBytes) - 1;
      this.parts.push({ start, endInclusive, receivedBytes: 0, retries: 0 });
    }
    this.ramp =
      options.concurrency === "auto"
        ? new ConnectionRamp(Math.min(options.maxAutoConnections, this.parts.length))
        : null;
    this.targetConnections =
      options.concurrency === "auto" ? 1 : Math.min(options.concurrency, this.parts.length);
  }

  async run(): Promise<RangedDownloadResult> {
    const { signal } = this.options;
    const onAbort = () =>
      this.fail(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener("abort", onAbort, { once: true });
    const rampTimer = this.ramp ? setInterval(() => this.rampTick(), this.options.rampWindowMs) : undefined;
    try {
      if (this.parts.length > 0) {
        const done = new Promise<void>((resolve) => {
          this.finish = resolve;
        });
        this.spawnWorkers();
        await done;
      }
      if (this.failure) throw this.failure;
      // never a rate over incomplete data: every part must be whole
      const incomplete = this.parts.find((part) => part.receivedBytes !== part.endInclusive - part.start + 1);
      if (incomplete || this.bytes !== this.options.sizeBytes) {
        throw new ProbeError(
          "protocol",
          `GET s3://${this.options.target.address.bucket}/${this.options.target.address.key}: received ${this.bytes} of ${this.options.sizeBytes} bytes`,
        );
      }
      return {
        bytes: this.bytes,
        retries: this.retries,
        parts: this.parts.length,
        ttfbSeconds: this.ttfbSeconds,
        connections: this.ramp ? this.ramp.chosenConnections : this.targetConnections,
        rampSteps: this.ramp ? this.ramp.steps : null,
      };
    } finally {
      if (rampTimer) clearInterval(rampTimer);
      signal.removeEventListener("abort", onAbort);
      for (const connection of this.connections) connection.destroy();
    }
  }

  private rampBytes = 0;

  private rampTick(): void {
    if (!this.ramp?.isGrowing) return;
    const bytesInWindow = this.bytes - this.rampBytes;
    this.rampBytes = this.bytes;
    if (this.nextPart >= this.parts.length) {
      this.ramp.stop();
      return;
    }
    const bitsPerSecond = (bytesInWindow * 8) / (this.options.rampWindowMs / 1000);
    this.targetConnections = this.ramp.observe(this.targetConnections, bitsPerSecond);
    this.spawnWorkers();
  }

  private spawnWorkers(): void {
    while (
      this.startedWorkers < this.targetConnections &&
      this.nextPart < this.parts.length &&
      !this.failure
    ) {
      const id = this.startedWorkers;
      this.startedWorkers += 1;
      this.runningWorkers += 1;
      this.worker(id)
        .catch((error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))))
        .finally(() => {
          this.runningWorkers -= 1;
          if (this.runningWorkers === 0) this.finish?.();
        });
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const connection of this.connections) connection.destroy(error);
    for (const wake of this.sleepers) wake();
  }

  /**
   * Waits between retries of a part, or until the download fails (its deadline included, which
   * `run` turns into a failure). The workers wait on this list rather than each adding a
   * listener to the probe's one deadline signal: ten connections backing off at once made
   * eleven listeners on it, and Node warned of a leak (MaxListenersExceededWarning).
   */
  private readonly sleepers = new Set<() => void>();

  private backoff(ms: number): Promise<void> {
    if (this.failure) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  private async worker(id: number): Promise<void> {
    const { target, caPem } = this.options;
    const connection = new Http1Connection(target.address, caPem, target.requestTimeoutMs);
    this.connections.add(connection);
    try {
      // a worker beyond the target (the ramp went back) finishes its part and retires
      while (!this.failure && id < this.targetConnections) {
        const part = this.parts[this.nextPart];
        if (!part) return;
        this.nextPart += 1;
        await this.fetchPart(part, connection);
      }
    } finally {
      this.connections.delete(connection);
      connection.destroy();
    }
  }

  private async fetchPart(part: Part, connection: Http1Connection): Promise<void> {
    const { address } = this.options.target;
    for (;;) {
      try {
        await this.fetchMissingRange(part, connection);
        return;
      } catch (error) {
        if (this.failure) throw this.failure;
        const attempt = error instanceof AttemptFailure ? error : new AttemptFailure(false, error as Error);
        if (!attempt.retryable) throw attempt.error;
        if (part.retries >= this.options.maxRetries) {
          throw new ProbeError(
            "retries-exhausted",
            `GET s3://${address.bucket}/${address.key} bytes ${part.start}-${part.endInclusive}: gave up after ${part.retries} retries (${part.receivedBytes} of ${part.endInclusive - part.start + 1} bytes received); last error: ${attempt.message}`,
            { cause: attempt.error },
          );
        }
        part.retries += 1;
        this.retries += 1;
        await this.backoff(
          backoffDelayMs(part.retries, this.options.backoffBaseMs, undefined, this.options.backoffRandom),
        );
        if (this.failure) throw this.failure;
      }
    }
  }

  /** One request for the bytes of `part` not received yet. Resolves when they all arrived. */
  private async fetchMissingRange(part: Part, connection: Http1Connection): Promise<void> {
    const { signer, etag, sampler } = this.options;
    const { address } = this.options.target;
    const first = part.start + part.receivedBytes;
    const range = `bytes=${first}-${part.endInclusive}`;
    const headers = await signer.sign(address, {
      method: "GET",
      headers: { range, "if-match": etag },
      payloadSha256: EMPTY_BODY_SHA256,
    });
    if (this.failure) throw this.failure;
    const isFirstAttempt = part.receivedBytes === 0 && part.retries === 0;
    const partLength = part.endInclusive - part.start + 1;
    const wholeObject = first === 0 && part.endInclusive === this.options.sizeBytes - 1;
    let badContentRange: string | null = null;
    const sentAtMs = performance.now();
    let result: Awaited<ReturnType<Http1Connection["get"]>>;
    try {
      result = await connection.get(address.path, headers, {
        onHead: (head) => {
          if (head.status === 206) {
            const contentRange = head.headers["content-range"] ?? "";
            if (!contentRange.startsWith(`bytes ${first}-${part.endInclusive}/`)) {
              badContentRange = contentRange;
              return false;
            }
          } else if (!(head.status === 200 && wholeObject)) {
            return false;
          }
          if (isFirstAttempt) this.ttfbSeconds.push((performance.now() - sentAtMs) / 1000);
          return true;
        },
        // the hot path: count and drop
        onBodyBytes: (length) => {
          part.receivedBytes += length;
          this.bytes += length;
          sampler.add(length);
        },
      });
    } catch (error) {
      if (badContentRange !== null) throw contentRangeError(range, badContentRange);
      throw new AttemptFailure(true, describeNetworkError(error as Error, range));
    }
    if (badContentRange !== null) throw contentRangeError(range, badContentRange);
    const { status } = result.head;
    if (result.errorBody !== null) {
      const code = parseS3ErrorBody(result.errorBody).code;
      const error =
        status === 200
          ? new ProbeError("protocol", `GET ${range}: the server ignored the Range header (HTTP 200)`)
          : s3ResponseError(`GET ${range}`, address, status, result.errorBody);
      throw new AttemptFailure(status !== 200 && isRetryableStatus(status, code), error);
    }
    if (part.receivedBytes !== partLength)
      throw new AttemptFailure(
        true,
        new Error(`GET ${range}: body ended ${partLength - part.receivedBytes} bytes short`),
      );
  }
}

function contentRangeError(range: string, contentRange: string): AttemptFailure {
  return new AttemptFailure(
    false,
    new ProbeError("protocol", `GET ${range}: server answered Content-Range "${contentRange}"`),
  );
}

function describeNetworkError(error: Error, range: string): Error {
  const code = (error as { code?: string }).code;
  return new Error(`GET ${range}: ${code ? `${code} ` : ""}${error.message}`, { cause: error });
}
