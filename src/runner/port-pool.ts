/**
 * The iperf3 server ports of a target. A server runs one test at a time, so each running
 * iperf3 test holds one port and hands it back when done; a test waits when all are taken.
 */
export class PortPool {
  private readonly free: number[];
  private readonly waiting: Array<(port: number) => void> = [];
  private readonly held = new Set<number>();

  constructor(ports: readonly number[]) {
    this.free = [...new Set(ports)];
  }

  get size(): number {
    return this.free.length + this.held.size;
  }

  acquire(): Promise<number> {
    const port = this.free.shift();
    if (port !== undefined) {
      this.held.add(port);
      return Promise.resolve(port);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(port: number): void {
    if (!this.held.has(port)) throw new Error(`port ${port} released but not held`);
    const next = this.waiting.shift();
    if (next) next(port);
    else {
      this.held.delete(port);
      this.free.push(port);
    }
  }

  /** Ports in use right now (for tests and diagnostics). */
  inUse(): number[] {
    return [...this.held];
  }
}
