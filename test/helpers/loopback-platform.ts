import type { AgentEventInput } from "../../src/agent/event.js";
import { handleEvent } from "../../src/agent/handler.js";
import type { LabProfileInput } from "../../src/plan/lab-profile.js";
import type { InvocationOutcome } from "../../src/results/invocation-outcome.js";
import type { PlatformFacts } from "../../src/results/platform-facts.js";
import type { EnvironmentVariant, Platform, ProbeEndpoints } from "../../src/runner/platform.js";
import { type StockServer, startStockServer } from "../probes/iperf3-support/stock-server.js";

/**
 * A custom lab profile for plans run on this platform (a `local` target must name a profile
 * the plan defines; the loopback platform itself does not shape).
 */
export function loopProfile(name: string): LabProfileInput {
  return {
    name,
    download: [{ memoryMb: 128, megabitsPerSecond: 1000 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 1000 }],
  };
}

/**
 * A test-only platform: every "environment" is this process, running the real agent handler
 * in-process against real stock `iperf3 -s` servers on loopback (one per port). It records what
 * the runner asks of it (concurrency, ports in use) so tests can check the runner's bounds.
 */
export class LoopbackPlatform implements Platform {
  readonly name = "local" as const;
  readonly target: string;
  readonly invocations: Array<{ variant: EnvironmentVariant; event: AgentEventInput }> = [];
  maxInFlightSeen = 0;
  portCollisions = 0;
  private inFlight = 0;
  private readonly portsInUse = new Set<number>();
  /** One stock server per port, by port. */
  private readonly servers: Map<number, StockServer>;
  private readonly concurrency: number;
  private readonly invokeDelayMs: number;

  private constructor(
    target: string,
    servers: Map<number, StockServer>,
    concurrency: number,
    delayMs: number,
  ) {
    this.target = target;
    this.servers = servers;
    this.concurrency = concurrency;
    this.invokeDelayMs = delayMs;
  }

  static async open(options: {
    target?: string;
    servers?: number;
    concurrency?: number;
    /** Extra wall time per invocation, to widen the window for kill -9 tests. */
    invokeDelayMs?: number;
  }): Promise<LoopbackPlatform> {
    const servers = new Map<number, StockServer>();
    try {
      for (let i = 0; i < (options.servers ?? 2); i += 1) {
        const server = await startStockServer({ bindAddress: "127.0.0.1" });
        servers.set(server.port, server);
      }
    } catch (error) {
      await Promise.all([...servers.values()].map((server) => server.stop()));
      throw error;
    }
    return new LoopbackPlatform(
      options.target ?? "loopback",
      servers,
      options.concurrency ?? 2,
      options.invokeDelayMs ?? 0,
    );
  }

  async facts(): Promise<PlatformFacts> {
    return {
      platform: "local",
      target: this.target,
      emulated: true,
      unshaped: true,
      quotaBitsPerSecond: 625e6,
      details: { kind: "test loopback platform", iperf3Ports: this.servers.size },
    };
  }

  serverPids(): number[] {
    return [...this.servers.values()].map((server) => server.pid);
  }

  maxConcurrency(): number {
    return this.concurrency;
  }

  async prepare(_variants: EnvironmentVariant[]): Promise<void> {}

  endpoints(): ProbeEndpoints {
    return { iperf3: { host: "127.0.0.1", ports: [...this.servers.keys()] } };
  }

  async ensureTestObject(_bytes: number): Promise<string> {
    throw new Error("the loopback test platform has no S3 server");
  }

  async invoke(
    variant: EnvironmentVariant,
    event: AgentEventInput,
    options?: { signal?: AbortSignal },
  ): Promise<InvocationOutcome> {
    this.invocations.push({ variant, event });
    this.inFlight += 1;
    this.maxInFlightSeen = Math.max(this.maxInFlightSeen, this.inFlight);
    const port = event.probe === "iperf3" ? (event.port ?? 5201) : undefined;
    if (port !== undefined) {
      if (this.portsInUse.has(port)) this.portCollisions += 1;
      this.portsInUse.add(port);
    }
    const startedAt = new Date().toISOString();
    const startMs = performance.now();
    try {
      if (this.invokeDelayMs > 0) await delay(this.invokeDelayMs, options?.signal);
      // a stock server still ending its last test answers the next client ACCESS_DENIED
      if (port !== undefined) await this.servers.get(port)?.idle(30_000);
      const response = await handleEvent(event);
      return { response, failure: null, startedAt, durationSeconds: (performance.now() - startMs) / 1000 };
    } finally {
      this.inFlight -= 1;
      if (port !== undefined) this.portsInUse.delete(port);
    }
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.stop()));
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
