/**
 * Records how many bytes moved in each fixed interval (default 250 ms) of a transfer, so
 * the burst (first second) and the sustained rate can be told apart afterwards.
 * The caller adds bytes as they move; a timer closes one interval after another.
 */
export interface IntervalSamples {
  intervalSeconds: number;
  /** Bytes moved in each consecutive interval from the start; the last one may be partial. */
  bytes: number[];
  /** Length of the last (partial) interval in seconds. */
  lastIntervalSeconds: number;
}

export class IntervalSampler {
  private readonly intervalMs: number;
  private readonly closed: number[] = [];
  private current = 0;
  private lastCloseMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(intervalMs = 250) {
    if (!(intervalMs >= 10)) throw new RangeError(`intervalMs must be >= 10, got ${intervalMs}`);
    this.intervalMs = intervalMs;
  }

  start(nowMs = performance.now()): void {
    this.lastCloseMs = nowMs;
    this.timer = setInterval(() => this.closeDueIntervals(performance.now()), this.intervalMs);
    this.timer.unref();
  }

  add(byteCount: number): void {
    this.current += byteCount;
  }

  /** Stops sampling and returns the samples (the open interval becomes the last, partial one). */
  stop(nowMs = performance.now()): IntervalSamples {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.closeDueIntervals(nowMs);
    const lastIntervalSeconds = Math.max(0, (nowMs - this.lastCloseMs) / 1000);
    const bytes = [...this.closed];
    if (this.current > 0 || lastIntervalSeconds > 0.001) bytes.push(this.current);
    return { intervalSeconds: this.intervalMs / 1000, bytes, lastIntervalSeconds };
  }

  // Timers can fire late under load; bytes of a late tick go to the interval being closed,
  // and any wholly skipped intervals are recorded as zero, keeping the time axis exact.
  private closeDueIntervals(nowMs: number): void {
    while (nowMs - this.lastCloseMs >= this.intervalMs) {
      this.closed.push(this.current);
      this.current = 0;
      this.lastCloseMs += this.intervalMs;
    }
  }
}
