/**
 * The iperf3 server ports of a target. A server runs one test at a time, so each running
 * iperf3 test holds one port and hands it back when done; a test waits when all are taken.
 */
export class PortPool {
  private readonly free: number[];
  private readonly waiting: Array<{ count: number; wake: (ports: number[]) => void }> = [];
  private readonly held = new Set<number>();

  constructor(ports: readonly number[]) {
    this.free = [...new Set(ports)];
  }

  get size(): number {
    return this.free.length + this.held.size;
  }

  async acquire(): Promise<number> {
    return (await this.acquireMany(1))[0] as number;
  }

  /**
   * Takes `count` ports at once (a fleet group needs one per environment). All or nothing, in
   * order of asking: taking them one by one would let two groups each hold half and wait forever.
   */
  acquireMany(count: number): Promise<number[]> {
    if (!(Number.isInteger(count) && count >= 1 && count <= this.size)) {
      return Promise.reject(new Error(`${count} iperf3 ports wanted at once, the server has ${this.size}`));
    }
    if (this.waiting.length === 0 && this.free.length >= count) return Promise.resolve(this.take(count));
    return new Promise((resolve) => this.waiting.push({ count, wake: resolve }));
  }

  release(port: number): void {
    if (!this.held.has(port)) throw new Error(`port ${port} released but not held`);
    this.held.delete(port);
    this.free.push(port);
    while (this.waiting.length > 0 && this.free.length >= (this.waiting[0]?.count ?? 0)) {
      const next = this.waiting.shift() as { count: number; wake: (ports: number[]) => void };
      next.wake(this.take(next.count));
    }
  }

  private take(count: number): number[] {
    const ports = this.free.splice(0, count);
    for (const port of ports) this.held.add(port);
    return ports;
  }

  /** Ports in use right now (for tests and diagnostics). */
  inUse(): number[] {
    return [...this.held];
  }
}
