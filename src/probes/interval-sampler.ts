/**
 * Bytes per interval of a transfer, each interval with its own measured start and length, so
 * the burst and the sustained rate can be told apart afterwards and no interval's rate rests on
 * a nominal boundary. Shape C1 of the results (schemaVersion 2).
 */
export interface IntervalSamples {
  /** Nominal sampling interval the probe asked for, seconds (informational only). */
  intervalSeconds: number;
  /** Measured start of each interval, seconds from the start of the measured period. */
  startSeconds: number[];
  /** Measured length of each interval, seconds (never a nominal boundary). */
  durationSeconds: number[];
  /** Bytes moved in each interval. */
  bytes: number[];
}

export function emptySamples(intervalMs: number): IntervalSamples {
  return { intervalSeconds: intervalMs / 1000, startSeconds: [], durationSeconds: [], bytes: [] };
}

/**
 * Event-loop turns an interval close waits after its timer fired before it reads the counter
 * and the clock. A blocked event loop (GC, a CPU-starved Lambda) leaves data in the kernel's
 * socket buffers, and the timer runs before the reads that follow the stall: closing at once
 * would credit the stall with nothing and the next interval with the backlog (a zero, then a
 * double). Each turn runs one poll phase, which reads what the kernel holds (libuv reads up to
 * 32 buffers per socket per turn), so the backlog lands in the interval that spans the stall,
 * whose measured length covers the time the link carried it.
 */
const SETTLE_TURNS = 3;

/**
 * A trailing interval shorter than this share of the nominal one is merged into the one before.
 * A sender counts bytes as the kernel accepts them, in bursts of a send buffer's worth: over a
 * short tail that granularity shows a rate no link gave (85 ms at 247 Mbit/s on a 200 Mbit/s
 * tbf link, in test/probes/interval-timing-netns.test.ts).
 */
const MIN_TAIL_SHARE = 0.5;

/**
 * Records how many bytes moved in each interval (default 250 ms) of a transfer. The caller adds
 * bytes as they move, or gives a running total to read (`readTotal`); a timer closes one
 * interval after another, reading the counter and performance.now() at the same moment.
 * Intervals are as long as they really were: a late timer makes a longer interval, never a
 * zero followed by a double.
 */
export class IntervalSampler {
  private readonly intervalMs: number;
  private readonly samples: IntervalSamples;
  /** Bytes added since the last close. */
  private current = 0;
  private startMs = 0;
  private lastCloseMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** Bumped by start/stop so a close still waiting for its settle turns knows it is stale. */
  private generation = 0;

  /** The running total at the last close, when the sampler reads one. */
  private lastTotal = 0;

  constructor(
    intervalMs = 250,
    /** A running byte total read at every close (instead of, or besides, `add`). */
    private readonly readTotal?: () => number,
  ) {
    if (!(intervalMs >= 10)) throw new RangeError(`intervalMs must be >= 10, got ${intervalMs}`);
    this.intervalMs = intervalMs;
    this.samples = emptySamples(intervalMs);
  }

  /** Starts (or restarts, dropping what was sampled, e.g. at the end of an omit period) the measured period. */
  start(nowMs = performance.now()): void {
    this.cancelTimer();
    this.samples.startSeconds.length = 0;
    this.samples.durationSeconds.length = 0;
    this.samples.bytes.length = 0;
    this.current = 0;
    this.lastTotal = this.readTotal?.() ?? 0;
    this.startMs = nowMs;
    this.lastCloseMs = nowMs;
    this.running = true;
    this.generation += 1;
    this.schedule();
  }

  add(byteCount: number): void {
    this.current += byteCount;
  }

  /** Stops sampling and returns the samples; the open interval becomes the last one. */
  stop(nowMs = performance.now()): IntervalSamples {
    if (!this.running) return copy(this.samples);
    this.takeTotal();
    this.cancelTimer();
    this.running = false;
    this.generation += 1;
    const tailMs = nowMs - this.lastCloseMs;
    const last = this.samples.bytes.length - 1;
    if (last >= 0 && tailMs < this.intervalMs * MIN_TAIL_SHARE) {
      this.samples.bytes[last] = (this.samples.bytes[last] as number) + this.current;
      this.samples.durationSeconds[last] =
        (nowMs - this.startMs) / 1000 - (this.samples.startSeconds[last] as number);
    } else if (tailMs > 0 || this.current > 0) {
      this.record(nowMs);
    }
    this.current = 0;
    this.lastCloseMs = nowMs;
    return copy(this.samples);
  }

  private schedule(): void {
    // aimed at the next nominal boundary from the start at least 3/4 of an interval away, so the
    // settle turns do not drift the series and a late close is not followed by a short interval
    // (a sender's kernel-accept bursts showed 254 Mbit/s over 0.149 s on a 200 Mbit/s link when
    // the next boundary only had to be half an interval away)
    const nowMs = performance.now();
    const elapsedMs = nowMs - this.startMs + (this.intervalMs * 3) / 4;
    const boundaryMs = this.startMs + Math.ceil(elapsedMs / this.intervalMs) * this.intervalMs;
    const delayMs = Math.max(1, boundaryMs - nowMs);
    this.timer = setTimeout(this.onTimer, delayMs);
    this.timer.unref();
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    const generation = this.generation;
    let turns = SETTLE_TURNS;
    const settle = (): void => {
      if (generation !== this.generation) return;
      turns -= 1;
      if (turns > 0) {
        setImmediate(settle);
        return;
      }
      this.takeTotal();
      this.record(performance.now());
      this.schedule();
    };
    setImmediate(settle);
  };

  private takeTotal(): void {
    if (!this.readTotal) return;
    const total = this.readTotal();
    this.current += total - this.lastTotal;
    this.lastTotal = total;
  }

  private record(nowMs: number): void {
    this.samples.startSeconds.push((this.lastCloseMs - this.startMs) / 1000);
    this.samples.durationSeconds.push((nowMs - this.lastCloseMs) / 1000);
    this.samples.bytes.push(this.current);
    this.current = 0;
    this.lastCloseMs = nowMs;
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function copy(samples: IntervalSamples): IntervalSamples {
  return {
    intervalSeconds: samples.intervalSeconds,
    startSeconds: [...samples.startSeconds],
    durationSeconds: [...samples.durationSeconds],
    bytes: [...samples.bytes],
  };
}
