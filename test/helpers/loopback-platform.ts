import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { AgentEventInput } from "../../src/agent/event.js";
import { handleEvent } from "../../src/agent/handler.js";
import type { LabProfileInput } from "../../src/plan/lab-profile.js";
import type { InvocationOutcome } from "../../src/results/invocation-outcome.js";
import type { PlatformFacts } from "../../src/results/platform-facts.js";
import type { EnvironmentVariant, Platform, ProbeEndpoints } from "../../src/runner/platform.js";
import { freeLoopbackPort } from "./free-port.js";

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
  private readonly servers: ChildProcess[];
  private readonly ports: number[];
  private readonly banners: Map<number, ListeningBanner>;
  private readonly concurrency: number;
  private readonly invokeDelayMs: number;

  private constructor(
    target: string,
    servers: ChildProcess[],
    ports: number[],
    banners: Map<number, ListeningBanner>,
    concurrency: number,
    delayMs: number,
  ) {
    this.target = target;
    this.servers = servers;
    this.ports = ports;
    this.banners = banners;
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
    const count = options.servers ?? 2;
    const ports: number[] = [];
    const servers: ChildProcess[] = [];
    const banners = new Map<number, ListeningBanner>();
    try {
      for (let i = 0; i < count; i += 1) {
        const port = await freeLoopbackPort();
        const server = spawn("iperf3", ["-s", "-B", "127.0.0.1", "-p", String(port), "--forceflush"], {
          stdio: ["ignore", "pipe", "ignore"],
        });
        servers.push(server);
        const banner = new ListeningBanner(server);
        await banner.next(5_000, `iperf3 server on port ${port} did not start`);
        banners.set(port, banner);
        ports.push(port);
      }
    } catch (error) {
      for (const server of servers) server.kill("SIGKILL");
      throw error;
    }
    return new LoopbackPlatform(
      options.target ?? "loopback",
      servers,
      ports,
      banners,
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
      details: { kind: "test loopback platform", iperf3Ports: this.ports.length },
    };
  }

  serverPids(): number[] {
    return this.servers.flatMap((server) => (server.pid === undefined ? [] : [server.pid]));
  }

  maxConcurrency(): number {
    return this.concurrency;
  }

  async prepare(_variants: EnvironmentVariant[]): Promise<void> {}

  endpoints(): ProbeEndpoints {
    return { iperf3: { host: "127.0.0.1", ports: this.ports } };
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
      const banner = port !== undefined ? this.banners.get(port) : undefined;
      await banner?.next(30_000, `iperf3 server on port ${port} never went back to listening`);
      const response = await handleEvent(event);
      return { response, failure: null, startedAt, durationSeconds: (performance.now() - startMs) / 1000 };
    } finally {
      this.inFlight -= 1;
      if (port !== undefined) this.portsInUse.delete(port);
    }
  }

  async dispose(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.exitCode !== null || server.signalCode !== null) return resolve();
            server.once("exit", () => resolve());
            server.kill("SIGKILL");
          }),
      ),
    );
  }
}

/**
 * Whether a stock `iperf3 -s` is ready for a client: it prints "Server listening" at start and
 * after each test, "Accepted connection" when a client comes. A test connection is not a way to
 * ask: to 3.12 it is a client, and while it cleans up after one, the next client is refused
 * (ACCESS_DENIED, "busy"), which a fleet's next repetition met in a busy whole run.
 */
class ListeningBanner {
  private listening = false;
  private waiter: (() => void) | null = null;

  constructor(server: ChildProcess) {
    if (!server.stdout) throw new Error("iperf3 server started without a stdout pipe");
    createInterface({ input: server.stdout }).on("line", (line) => {
      if (line.includes("Accepted connection")) this.listening = false;
      if (!line.includes("Server listening")) return;
      this.listening = true;
      this.waiter?.();
    });
  }

  /** Resolves once the server's last word is "Server listening". */
  async next(timeoutMs: number, failure: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.listening) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(failure);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
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
