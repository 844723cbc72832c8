/**
 * A counting semaphore whose holders take several slots at once: a fleet group of N
 * environments counts as N invocations against the run's parallelism. Waiters are served in
 * order, so a large group is never starved by a stream of small tasks.
 */
export class WeightedSlots {
  private free: number;
  private readonly waiting: Array<{ weight: number; wake: () => void }> = [];

  constructor(readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity >= 1))
      throw new RangeError(`capacity ${capacity}: a whole number from 1`);
    this.free = capacity;
  }

  /** Waits for `weight` slots (at most the capacity: a group larger than it runs alone). */
  acquire(weight: number): Promise<number> {
    const taken = Math.min(Math.max(1, weight), this.capacity);
    if (this.waiting.length === 0 && this.free >= taken) {
      this.free -= taken;
      return Promise.resolve(taken);
    }
    return new Promise((resolve) => this.waiting.push({ weight: taken, wake: () => resolve(taken) }));
  }

  release(taken: number): void {
    this.free += taken;
    while (this.waiting.length > 0 && this.free >= (this.waiting[0]?.weight ?? 0)) {
      const next = this.waiting.shift() as { weight: number; wake: () => void };
      this.free -= next.weight;
      next.wake();
    }
  }
}
