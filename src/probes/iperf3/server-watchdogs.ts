/** Timeouts that keep one bad client from holding the port (roughly the stock 3.15+ values). */
export interface ServerTimeouts {
  /** A new connection must deliver its 37-byte cookie within this (3.12 waits forever). */
  cookieMs: number;
  paramsMs: number;
  /** All data streams must connect within this after CREATE_STREAMS. */
  streamsMs: number;
  resultsMs: number;
  doneMs: number;
  /** The C server's watchdog: TEST_END must come within time + omit + this. */
  watchdogMarginSeconds: number;
  /** No byte moved on any stream for this long: the client is gone (iperf3's --rcv-timeout). */
  idleMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  cookieMs: 10_000,
  paramsMs: 30_000,
  streamsMs: 30_000,
  resultsMs: 30_000,
  doneMs: 10_000,
  watchdogMarginSeconds: 40,
  idleMs: 120_000,
};
const IDLE_CHECK_MS = 5_000;

/**
 * The timers of one server test: step timeouts (parameters, streams, results, IPERF_DONE), the
 * C server's test-duration watchdog and the idle watch. A timer that fires with an Error ends the
 * test through `interrupt`; all of them go at once when the test is over.
 */
export class SessionWatchdogs {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly interrupt: (error: Error) => void) {}

  /** Arms a timer whose result, if an Error, interrupts the test. */
  arm(ms: number, onFire: () => Error | undefined): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const error = onFire();
      if (error) this.interrupt(error);
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  disarm(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Ends the test when `movedBytes` (every byte on any stream, counted or not) stays still for `idleMs`. */
  watchIdle(idleMs: number, movedBytes: () => number): void {
    let lastMoved = -1;
    let idleSinceMs = performance.now();
    const check = () => {
      const moved = movedBytes();
      const now = performance.now();
      if (moved !== lastMoved) {
        lastMoved = moved;
        idleSinceMs = now;
      } else if (now - idleSinceMs >= idleMs) {
        this.interrupt(new Error(`no data moved for ${idleMs / 1000} s`));
        return;
      }
      this.arm(Math.min(IDLE_CHECK_MS, idleMs), () => {
        check();
        return undefined;
      });
    };
    check();
  }
}
