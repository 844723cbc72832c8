/**
 * A per-flow rate cap for one data stream of our iperf3 server: a token bucket in bytes that
 * refills at the cap and holds 100 ms worth, so a stream that stalled cannot catch up above the
 * cap later (a long-run average would let it), while a timer that fires late on a loaded host
 * (up to ~100 ms) does not cost throughput: the bucket keeps what accrued meanwhile. The lab uses it to emulate a cap on
 * each TCP connection (profile key `flowMegabitsPerSecond`): a receive stream stops reading when
 * the bucket is empty, so the client's window closes (TCP backpressure); a send stream waits
 * before its next write.
 */

/** Bucket depth: 100 ms at the cap, at least 1 MiB (four 256 KiB reads of the server's buffer). */
const DEPTH_SECONDS = 0.1;
const MIN_DEPTH_BYTES = 1_048_576;

/** The bucket's depth at a cap: the most a flow can move above the cap in any stretch of time. */
export function flowBucketDepthBytes(bitsPerSecond: number): number {
  return Math.max(MIN_DEPTH_BYTES, (bitsPerSecond / 8) * DEPTH_SECONDS);
}

export class FlowPacer {
  private readonly bytesPerMs: number;
  private readonly depthBytes: number;
  private tokens: number;
  private lastMs: number;

  constructor(
    /** Payload bits per second this flow may move. */
    readonly bitsPerSecond: number,
    nowMs: number = performance.now(),
  ) {
    if (!(bitsPerSecond > 0)) throw new Error(`flow cap: ${bitsPerSecond} bit/s is not a positive rate`);
    this.bytesPerMs = bitsPerSecond / 8 / 1000;
    this.depthBytes = flowBucketDepthBytes(bitsPerSecond);
    this.tokens = this.depthBytes;
    this.lastMs = nowMs;
  }

  /** Counts `bytes` that moved; returns how long (ms) the flow must now wait, 0 when it may go on. */
  take(bytes: number, nowMs: number = performance.now()): number {
    this.refill(nowMs);
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : -this.tokens / this.bytesPerMs;
  }

  /** How long (ms) until the bucket is no longer in debt, without taking anything. */
  waitMs(nowMs: number = performance.now()): number {
    this.refill(nowMs);
    return this.tokens >= 0 ? 0 : -this.tokens / this.bytesPerMs;
  }

  private refill(nowMs: number): void {
    const elapsedMs = Math.max(0, nowMs - this.lastMs);
    this.lastMs = nowMs;
    this.tokens = Math.min(this.depthBytes, this.tokens + elapsedMs * this.bytesPerMs);
  }
}
