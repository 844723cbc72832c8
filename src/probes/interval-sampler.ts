/**
 * Bytes per interval of a transfer, each interval with its own measured start and length, so
 * the burst and the sustained rate can be told apart afterwards and no interval's rate rests on
 * a nominal boundary. This is the `samples` shape of results.jsonl from schemaVersion 2 on.
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
 * A timer this late (share of the interval) means the event loop was blocked: the kernel may
 * hold more than three turns can read (a stream's backpressure lets libuv read only a
 * high-water mark's worth per turn). The close then keeps taking turns while a turn still
 * brings in a backlog's worth, for at most as long as the timer was late (and one interval).
 * Measured through a 100 Mbit/s relay with a 600 ms stall: three turns left ~1 MB for the next
 * interval, which then showed 119 Mbit/s.
 */
const STALL_SHARE = 0.25;
/**
 * The backlog is taken as drained once the last BACKLOG_WINDOW_MS brought in less than
 * BACKLOG_WINDOW_BYTES (256 Mbit/s). Measured per turn, a turn could read nothing while the
 * peer's window update was still on its way, and the rest of the backlog went to the next
 * interval. On a faster link the window never falls below it, and the close waits out its
 * budget: a longer measured interval, never a misplaced byte.
 */
const BACKLOG_WINDOW_MS = 2;
const BACKLOG_WINDOW_BYTES = 64 * 1024;

/**
 * While the total says it may lag what crossed the link (`RunningTotal.lagging`: the kernel is
 * repairing a loss, and what followed the lost segment crossed but is not acknowledged yet), the
 * close waits, looking again every REPAIR_POLL_MS, for at most REPAIR_BUDGET_INTERVALS intervals:
 * a longer interval, never bytes in the wrong one. Closed in the middle of a repair, an interval
 * lost ~1 MB to the next: 75 then 125 Mbit/s on a 100 Mbit/s tbf link whose own counter read 97
 * and 95 (test/probes/interval-timing-s3.test.ts, 4 of 8 runs beside a busy loop). A repair by
 * retransmission timeout (200 ms and more) outlasts an interval: waiting one, 3 of 10 runs still
 * closed in the middle of one; waiting up to four, none of 10.
 */
const REPAIR_POLL_MS = 5;
const REPAIR_BUDGET_INTERVALS = 4;

/**
 * A trailing interval shorter than this share of the nominal one is merged into the one before.
 * A sender counts bytes as the kernel accepts them, in bursts of a send buffer's worth: over a
 * short tail that granularity shows a rate no link gave (85 ms at 247 Mbit/s on a 200 Mbit/s
 * tbf link, in test/probes/interval-timing-netns.test.ts).
 */
const MIN_TAIL_SHARE = 0.5;

/**
 * The clock and event loop a sampler runs on. Production uses `eventLoop`; a test gives its own
 * to drive time and turns exactly (test/probes/interval-sampler.test.ts), since what the sampler
 * does around a stall depends on when each turn runs, which a loaded host does not keep.
 */
export interface SamplerLoop {
  /** Milliseconds on a monotonic clock. */
  nowMs(): number;
  /** Runs `callback` once `delayMs` have passed, without keeping the process alive; returns its cancel. */
  setTimer(callback: () => void, delayMs: number): () => void;
  /** Runs `callback` after the event loop's next poll phase (the socket reads it brings). */
  nextTurn(callback: () => void): void;
}

/** performance.now(), an unref'd setTimeout and setImmediate. */
export const eventLoop: SamplerLoop = {
  nowMs: () => performance.now(),
  setTimer: (callback, delayMs) => {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
  nextTurn: (callback) => {
    setImmediate(callback);
  },
};

/**
 * A running byte total the sampler reads at every close, and when its last figure was true. A
 * figure read from the kernel (the bytes the peer acknowledged) is true when the kernel's table
 * was read, not when the close stamps its end: a process descheduled between the two (50 ms in a
 * busy run) left the bytes of those ms to the next interval, 77 then 120 Mbit/s on a 100 Mbit/s
 * link. So the close ends its interval at `takenAtMs` when the source gives one.
 */
export interface RunningTotal {
  /** The total; `fresh` (an interval's close) asks for a figure read now, none reused. */
  read(fresh: boolean): number;
  /** The loop's clock when the last figure read was true; null: when it was read. */
  takenAtMs(): number | null;
  /**
   * True while the last figure may lag what crossed the link by more than the usual round trip
   * (a loss being repaired); the close then waits for one that does not. Absent: never.
   */
  lagging?(nowMs: number): boolean;
}

/** A plain running total, true when it is read. */
function plainTotal(readTotal: () => number): RunningTotal {
  return { read: () => readTotal(), takenAtMs: () => null };
}

/**
 * Records how many bytes moved in each interval (default 250 ms) of a transfer. The caller adds
 * bytes as they move, or gives a running total to read (`readTotal`); a timer closes one
 * interval after another, reading the counter and the clock at the same moment.
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
  /** Cancels the pending close timer, if one is set. */
  private cancelPending: (() => void) | undefined;
  /** When the pending timer is due (the loop's clock, milliseconds). */
  private dueMs = 0;
  private running = false;
  /** Bumped by start/stop so a close still waiting for its settle turns knows it is stale. */
  private generation = 0;

  /** The running total at the last close, when the sampler reads one. */
  private lastTotal = 0;
  private readonly source: RunningTotal | undefined;

  constructor(
    intervalMs = 250,
    /** A running byte total read at every close (instead of, or besides, `add`). */
    readTotal?: (() => number) | RunningTotal,
    private readonly loop: SamplerLoop = eventLoop,
  ) {
    this.source = typeof readTotal === "function" ? plainTotal(readTotal) : readTotal;
    if (!(intervalMs >= 10)) throw new RangeError(`intervalMs must be >= 10, got ${intervalMs}`);
    this.intervalMs = intervalMs;
    this.samples = emptySamples(intervalMs);
  }

  /** Starts (or restarts, dropping what was sampled, e.g. at the end of an omit period) the measured period. */
  start(nowMs = this.loop.nowMs()): void {
    this.cancelTimer();
    this.samples.startSeconds.length = 0;
    this.samples.durationSeconds.length = 0;
    this.samples.bytes.length = 0;
    this.current = 0;
    this.lastTotal = this.source?.read(true) ?? 0;
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
  stop(nowMs = this.loop.nowMs()): IntervalSamples {
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
    const nowMs = this.loop.nowMs();
    const elapsedMs = nowMs - this.startMs + (this.intervalMs * 3) / 4;
    const boundaryMs = this.startMs + Math.ceil(elapsedMs / this.intervalMs) * this.intervalMs;
    const delayMs = Math.max(1, boundaryMs - nowMs);
    this.dueMs = nowMs + delayMs;
    this.cancelPending = this.loop.setTimer(this.onTimer, delayMs);
  }

  private readonly onTimer = (): void => {
    this.cancelPending = undefined;
    const generation = this.generation;
    const firedMs = this.loop.nowMs();
    const lateMs = firedMs - this.dueMs;
    const drainBudgetMs = lateMs > this.intervalMs * STALL_SHARE ? Math.min(lateMs, this.intervalMs) : 0;
    const backlog = new BacklogWatch(firedMs, this.pendingBytes());
    let turns = SETTLE_TURNS;
    const settle = (): void => {
      if (generation !== this.generation) return;
      turns -= 1;
      const nowMs = this.loop.nowMs();
      const draining = nowMs - firedMs < drainBudgetMs && backlog.flowing(nowMs, this.pendingBytes());
      if (turns > 0 || draining) {
        this.loop.nextTurn(settle);
        return;
      }
      if (nowMs - firedMs < this.intervalMs * REPAIR_BUDGET_INTERVALS && this.source?.lagging?.(nowMs)) {
        this.cancelPending = this.loop.setTimer(settle, REPAIR_POLL_MS);
        return;
      }
      this.close();
      this.schedule();
    };
    this.loop.nextTurn(settle);
  };

  /** Ends the open interval when its total was true (a kernel table's read), if that came since the last close; else now. */
  private close(): void {
    const takenAtMs = this.takeTotal();
    const nowMs = this.loop.nowMs();
    const sinceLastClose = takenAtMs !== null && takenAtMs > this.lastCloseMs && takenAtMs <= nowMs;
    this.record(sinceLastClose ? takenAtMs : nowMs);
  }

  /** Bytes moved since the last close, without closing. */
  private pendingBytes(): number {
    return this.current + (this.source ? this.source.read(false) - this.lastTotal : 0);
  }

  /** Adds what the total moved since the last close, read afresh; returns when that figure was true (null: now). */
  private takeTotal(): number | null {
    if (!this.source) return null;
    const total = this.source.read(true);
    this.current += total - this.lastTotal;
    this.lastTotal = total;
    return this.source.takenAtMs();
  }

  private record(nowMs: number): void {
    this.samples.startSeconds.push((this.lastCloseMs - this.startMs) / 1000);
    this.samples.durationSeconds.push((nowMs - this.lastCloseMs) / 1000);
    this.samples.bytes.push(this.current);
    this.current = 0;
    this.lastCloseMs = nowMs;
  }

  private cancelTimer(): void {
    this.cancelPending?.();
    this.cancelPending = undefined;
  }
}

/** Bytes seen at each settle turn, to tell a backlog still arriving from a link's steady flow. */
class BacklogWatch {
  private readonly turns: { atMs: number; bytes: number }[];

  constructor(startMs: number, bytes: number) {
    this.turns = [{ atMs: startMs, bytes }];
  }

  /** Records this turn; true while the last BACKLOG_WINDOW_MS brought in a backlog's worth. */
  flowing(nowMs: number, bytes: number): boolean {
    this.turns.push({ atMs: nowMs, bytes });
    while (this.turns.length > 2 && (this.turns[1]?.atMs ?? nowMs) <= nowMs - BACKLOG_WINDOW_MS)
      this.turns.shift();
    const oldest = this.turns[0] as { atMs: number; bytes: number };
    if (nowMs - oldest.atMs < BACKLOG_WINDOW_MS) return true;
    return bytes - oldest.bytes >= BACKLOG_WINDOW_BYTES;
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
