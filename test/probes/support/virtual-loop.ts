import type { SamplerLoop } from "../../../src/probes/interval-sampler.js";

/**
 * An event loop whose clock and turns the test drives, for the interval sampler: time moves
 * only when a turn says so, so a stall, a backlog's pace and a late timer are exactly what the
 * test wrote, whatever else the host runs. Each `turn` runs Node's phases in order: the timers
 * due by then, the poll phase (`io`: what the sockets brought), then the check phase (callbacks
 * queued with `nextTurn` before it began; those queued during it wait for the next turn).
 */
export class VirtualLoop implements SamplerLoop {
  private clockMs = 0;
  private nextTimerId = 0;
  private readonly timers = new Map<number, { atMs: number; callback: () => void }>();
  private immediates: (() => void)[] = [];

  nowMs(): number {
    return this.clockMs;
  }

  setTimer(callback: () => void, delayMs: number): () => void {
    const id = this.nextTimerId++;
    this.timers.set(id, { atMs: this.clockMs + delayMs, callback });
    return () => this.timers.delete(id);
  }

  nextTurn(callback: () => void): void {
    this.immediates.push(callback);
  }

  /** One turn at `atMs` (never earlier than the clock): timers due, then `io`, then the check phase. */
  turn(atMs: number, io?: () => void): void {
    if (atMs < this.clockMs)
      throw new RangeError(`turn at ${atMs} ms: the clock is already at ${this.clockMs} ms`);
    this.clockMs = atMs;
    const due = [...this.timers.entries()]
      .filter(([, timer]) => timer.atMs <= atMs)
      .sort(([, a], [, b]) => a.atMs - b.atMs);
    for (const [id, timer] of due) {
      this.timers.delete(id);
      timer.callback();
    }
    io?.();
    const checks = this.immediates;
    this.immediates = [];
    for (const callback of checks) callback();
  }

  /**
   * The process loses the CPU for `ms` in the middle of what it runs (descheduled, a GC pause):
   * the clock moves, nothing else happens.
   */
  pause(ms: number): void {
    this.clockMs += ms;
  }

  /** Turns every `stepMs` from the clock up to `untilMs`, each with `io(atMs)`; none the clock has passed. */
  run(untilMs: number, stepMs: number, io?: (atMs: number) => void): void {
    const fromMs = this.clockMs;
    for (let step = 1; fromMs + step * stepMs <= untilMs; step += 1) {
      const atMs = fromMs + step * stepMs;
      if (atMs < this.clockMs) continue;
      this.turn(atMs, io ? () => io(atMs) : undefined);
    }
  }
}
