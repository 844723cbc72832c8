/**
 * `concurrency: "auto"`: start with one connection and add one per observation window while
 * each addition still raises the throughput by at least `minGain`; when one does not, go back
 * to the count that last helped and stay there. Every connection costs CPU (TLS, HTTP
 * parsing), which Lambda rations, so the probe uses the fewest that fill the link.
 */
export interface RampStep {
  connections: number;
  bitsPerSecond: number;
}

export class ConnectionRamp {
  readonly steps: RampStep[] = [];
  private bestBitsPerSecond = 0;
  private bestConnections = 1;
  private growing = true;

  constructor(
    private readonly maxConnections: number,
    private readonly minGain = 0.05,
  ) {}

  /** The count the ramp settled on (or the best so far while it is still growing). */
  get chosenConnections(): number {
    return this.bestConnections;
  }

  get isGrowing(): boolean {
    return this.growing;
  }

  /** Feeds the rate measured over the last window with `connections` open; returns the next target. */
  observe(connections: number, bitsPerSecond: number): number {
    if (!this.growing) return this.bestConnections;
    this.steps.push({ connections, bitsPerSecond });
    // nothing moved yet (connecting, first byte pending): wait, do not judge
    if (bitsPerSecond <= 0) return connections;
    if (this.bestBitsPerSecond === 0 || bitsPerSecond >= this.bestBitsPerSecond * (1 + this.minGain)) {
      this.bestBitsPerSecond = bitsPerSecond;
      this.bestConnections = connections;
      if (connections >= this.maxConnections) {
        this.growing = false;
        return connections;
      }
      return connections + 1;
    }
    this.growing = false;
    return this.bestConnections;
  }

  /** Stops growing (e.g. no parts left to hand to a new connection). */
  stop(): void {
    this.growing = false;
  }
}
