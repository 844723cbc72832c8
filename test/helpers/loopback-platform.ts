import { type ChildProcess, spawn } from "node:child_process";
import { createConnection, createServer } from "node:net";
import type { AgentResponse } from "../../src/agent/agent-response.js";
import { type AgentEventInput, parseAgentEvent } from "../../src/agent/event.js";
import { handleEvent } from "../../src/agent/handler.js";
import type {
  EnvironmentVariant,
  InvocationOutcome,
  Platform,
  PlatformFacts,
  ProbeEndpoints,
} from "../../src/platforms/platform.js";
import { countInvocation } from "../../src/probes/info.js";

/**
 * A test-only platform: every "environment" is this process, running the real agent handler
 * in-process against real stock `iperf3 -s` servers on loopback (one per port). It records what
 * the runner asks of it (concurrency, ports in use) so tests can check the runner's bounds.
 *
 * While our own iperf3 client is not yet in main (the agent answers "being built"), iperf3 events
 * run the stock `iperf3 -c` client instead and its -J output becomes the probe summary: real
 * bytes over a real loopback connection either way.
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
  private readonly concurrency: number;
  private readonly invokeDelayMs: number;

  private constructor(
    target: string,
    servers: ChildProcess[],
    ports: number[],
    concurrency: number,
    delayMs: number,
  ) {
    this.target = target;
    this.servers = servers;
    this.ports = ports;
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
    try {
      for (let i = 0; i < count; i += 1) {
        const port = await freePort();
        const server = spawn("iperf3", ["-s", "-B", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
        servers.push(server);
        await waitForListening(port, 5_000);
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
      let response = await handleEvent(event);
      if (event.probe === "iperf3" && !response.ok && /being built/.test(response.error.message)) {
        response = await runStockIperf3(event, options?.signal);
      }
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

interface Iperf3Json {
  intervals: Array<{ sum: { bytes: number; seconds: number } }>;
  end: {
    sum_sent: { bytes: number; seconds: number; bits_per_second: number; retransmits?: number };
    sum_received: { bytes: number; seconds: number; bits_per_second: number };
  };
  error?: string;
}

/** The stock iperf3 client, its -J output mapped onto our probe summary. */
async function runStockIperf3(input: AgentEventInput, signal?: AbortSignal): Promise<AgentResponse> {
  const event = parseAgentEvent(input);
  if (event.probe !== "iperf3") throw new Error("not an iperf3 event");
  const invocation = countInvocation();
  const startedAt = new Date().toISOString();
  const startMs = performance.now();
  const cpuBefore = process.cpuUsage();
  const args = [
    "-c",
    event.host,
    "-p",
    String(event.port),
    "-t",
    String(event.timeSeconds),
    "-P",
    String(event.parallel),
  ];
  args.push("-J", "-i", "0.25");
  if (event.reverse) args.push("-R");
  if (event.bidir) args.push("--bidir");
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn("iperf3", args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", reject);
    child.on("close", () => {
      signal?.removeEventListener("abort", onAbort);
      resolve(stdout);
    });
  });
  const elapsed = (performance.now() - startMs) / 1000;
  let json: Iperf3Json;
  try {
    json = JSON.parse(output) as Iperf3Json;
  } catch {
    return failure("protocol", `iperf3 printed no JSON: ${output.slice(0, 200)}`);
  }
  if (json.error) return failure("server-error", json.error);
  const cpu = process.cpuUsage(cpuBefore);
  const measured = event.reverse ? json.end.sum_received : json.end.sum_sent;
  return {
    ok: true,
    probe: "iperf3",
    summary: {
      bytes: measured.bytes,
      seconds: measured.seconds,
      bitsPerSecond: measured.bits_per_second,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      retransmits: json.end.sum_sent.retransmits ?? null,
      retries: 0,
      direction: event.bidir ? "bidir" : event.reverse ? "download" : "upload",
      samples: {
        intervalSeconds: 0.25,
        bytes: json.intervals.map((interval) => interval.sum.bytes),
        lastIntervalSeconds: json.intervals.at(-1)?.sum.seconds ?? 0,
      },
    },
    detail: null,
    invocation,
    startedAt,
    durationSeconds: elapsed,
  };

  function failure(kind: "protocol" | "server-error", message: string): AgentResponse {
    return {
      ok: false,
      probe: "iperf3",
      error: { kind, message },
      invocation,
      startedAt,
      durationSeconds: elapsed,
    };
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForListening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await delay(50);
  }
  throw new Error(`iperf3 server on port ${port} did not start`);
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
