/**
 * Application pacing of one send stream (`-b`, bits per second a stream), as the C sender's
 * average-rate throttle: the bytes allowed grow with the time since the test's start mark, so a
 * server descheduled for a while catches up afterwards and the test's average is the rate asked
 * for, never above it. Pure arithmetic on the caller's clock (performance.now() milliseconds).
 */
export class AverageRatePacer {
  private readonly bytesPerMs: number;

  constructor(
    readonly bitsPerSecond: number,
    /** The test's start mark. */
    private readonly startMs: number,
    /** Bytes the stream had written before the start mark (they do not count). */
    private readonly baseBytes: number,
  ) {
    if (!(bitsPerSecond > 0)) throw new Error(`pacing: ${bitsPerSecond} bit/s is not a positive rate`);
    this.bytesPerMs = bitsPerSecond / 8 / 1000;
  }

  /**
   * How long (ms) the stream must wait before its next write, having written `writtenBytes` in
   * all by `nowMs`: 0 while it is behind the average rate, at least 1 ms once it is ahead.
   */
  waitMs(writtenBytes: number, nowMs: number): number {
    const allowedBytes = Math.max(0, nowMs - this.startMs) * this.bytesPerMs;
    const aheadBytes = writtenBytes - this.baseBytes - allowedBytes;
    return aheadBytes <= 0 ? 0 : Math.max(1, aheadBytes / this.bytesPerMs);
  }
}
