import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { AgentResponse } from "../../agent/agent-response.js";
import type { InvocationFailureKind } from "../../results/invocation-outcome.js";
import { agentNode } from "./agent-node.js";
import { type EnvironmentCgroup, joinCgroupScript } from "./cgroups.js";
import { AGENT_BUNDLE, AGENT_RUNTIME, checkBuilt } from "./dist-paths.js";
import { inNamespace } from "./namespaces.js";

/**
 * One environment's agent: the runtime shim (dist/platforms/local/agent-runtime.js) with the
 * agent bundle, started inside the environment's namespace and cgroups and kept alive
 * between invocations (a warm environment); it dies with an OOM kill, a timeout or a crash,
 * and the next invocation starts a new one (a cold start), as on Lambda.
 */

export interface AgentPlacement {
  namespace: string | null;
  cgroup: EnvironmentCgroup | null;
  memoryMb: number;
  functionName: string;
  /** Another function's code instead of dist/agent/index.mjs (the file deployed to Lambda). */
  code?: FunctionCode;
}

/** A deployed function's own code and identity, as Lambda gives them to its runtime. */
export interface FunctionCode {
  bundlePath: string;
  functionName: string;
  functionVersion: string;
  region: string;
}

export type AgentResult =
  | { response: AgentResponse; failure: null }
  | { response: null; failure: { kind: InvocationFailureKind; message: string }; exit: AgentExit | null };

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

/** "Runtime exited with signal SIGKILL: <last lines of stderr>", as Lambda words it. */
export function describeAgentExit(exit: AgentExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const tail = exit.stderrTail.trim().split("\n").slice(-5).join(" | ");
  return `Runtime exited with ${how}${tail ? `: ${tail}` : ""}`;
}

const STDERR_TAIL_BYTES = 4096;
/** What the runtime shim writes on fd 3 once the bundle is loaded. */
const READY_LINE = JSON.stringify({ ready: true });
/**
 * How long a new agent may take to load before its first invocation (Node starting and the
 * bundle loading), not counted in the function timeout. Generous: well under 1 s on this
 * machine, 41 s in the stock-kernel guest (TCG, 9p root) while the host was heavily loaded.
 */
export const AGENT_READY_LIMIT_SECONDS = 600;

/** The environment variables Lambda gives a function (those the agent reads), nothing of ours. */
export function agentEnvironment(
  placement: AgentPlacement,
  credentials: Record<string, string>,
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    AWS_LAMBDA_FUNCTION_NAME: placement.code?.functionName ?? placement.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: placement.code?.functionVersion ?? "$LATEST",
    ...(placement.code ? { AWS_REGION: placement.code.region } : {}),
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: `${placement.memoryMb}`,
    ...credentials,
  };
}

export class AgentProcess {
  private readonly child: ChildProcess;
  private readonly events: Writable;
  private stderrTail = "";
  private buffered = "";
  private readonly pending: ((line: string) => void)[] = [];
  private exitInfo: AgentExit | null = null;
  private readonly exitWaiters: ((exit: AgentExit) => void)[] = [];
  private readyState: "loading" | "ready" = "loading";
  private readonly readyWaiters: (() => void)[] = [];

  constructor(
    readonly placement: AgentPlacement,
    credentials: Record<string, string>,
  ) {
    checkBuilt();
    const node = [agentNode().path, AGENT_RUNTIME, placement.code?.bundlePath ?? AGENT_BUNDLE];
    const [file, args] = inNamespace(placement.namespace, node[0] as string, node.slice(1));
    // join the cgroups before exec, so the agent is limited from its first instruction
    const spawnArgs: [string, string[]] = placement.cgroup
      ? ["sh", ["-c", `${joinCgroupScript(placement.cgroup)} && exec "$0" "$@"`, file, ...args]]
      : [file, args];
    this.child = spawn(spawnArgs[0], spawnArgs[1], {
      stdio: ["pipe", "ignore", "pipe", "pipe"],
      env: agentEnvironment(placement, credentials),
    });
    this.events = this.child.stdin as Writable;
    this.events.on("error", () => undefined); // a dead child is reported through exit
    (this.child.stderr as Readable).setEncoding("utf8").on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    const responses = this.child.stdio[3] as Readable;
    responses.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffered += chunk;
      let newline = this.buffered.indexOf("\n");
      while (newline >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        if (this.readyState === "loading" && line === READY_LINE) {
          this.readyState = "ready";
          for (const waiter of this.readyWaiters.splice(0)) waiter();
        } else {
          this.pending.shift()?.(line);
        }
        newline = this.buffered.indexOf("\n");
      }
    });
    this.child.on("exit", (code, signal) => {
      this.exitInfo = { code, signal, stderrTail: this.stderrTail };
      for (const waiter of this.exitWaiters.splice(0)) waiter(this.exitInfo);
    });
    this.child.on("error", (error) => {
      this.stderrTail += `\n${error.message}`;
    });
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Sends one event and waits for its response, the process's death, the timeout or the
   * abort signal. On timeout or abort the process is killed (the environment is recycled).
   * Death is classified by `classifyExit` (OOM vs crash).
   */
  async invoke(
    event: unknown,
    timeoutSeconds: number,
    signal: AbortSignal | undefined,
    classifyExit: (exit: AgentExit) => Promise<{ kind: InvocationFailureKind; message: string }>,
  ): Promise<AgentResult> {
    if (!this.alive) {
      return {
        response: null,
        failure: { kind: "platform", message: "agent process is not running" },
        exit: this.exitInfo,
      };
    }
    const readiness = await this.waitUntilReady(signal);
    if (readiness.kind === "exit")
      return { response: null, failure: await classifyExit(readiness.exit), exit: readiness.exit };
    if (readiness.kind !== "ready") {
      const exit = await this.kill();
      const message =
        readiness.kind === "abort"
          ? "invocation aborted"
          : `the agent did not start within ${AGENT_READY_LIMIT_SECONDS} s (Node and the bundle loading); stderr: ${exit.stderrTail.trim().slice(-500)}`;
      return { response: null, failure: { kind: "platform", message }, exit };
    }
    let cleanup = () => {};
    const outcome = await new Promise<
      | { kind: "line"; line: string }
      | { kind: "exit"; exit: AgentExit }
      | { kind: "timeout" }
      | { kind: "abort" }
    >((resolveOutcome) => {
      const timer = setTimeout(() => finish({ kind: "timeout" }), timeoutSeconds * 1000);
      const onAbort = () => finish({ kind: "abort" });
      const onLine = (line: string) => finish({ kind: "line", line });
      const onExit = (exit: AgentExit) => finish({ kind: "exit", exit });
      function finish(result: Parameters<typeof resolveOutcome>[0]) {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolveOutcome(result);
      }
      const removeWaiters = () => {
        removeItem(this.pending, onLine);
        removeItem(this.exitWaiters, onExit);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.push(onLine);
      this.exitWaiters.push(onExit);
      cleanup = removeWaiters;
      this.events.write(`${JSON.stringify(event)}\n`);
    });
    cleanup();
    if (outcome.kind === "line") {
      const parsed = JSON.parse(outcome.line) as { response?: AgentResponse; runtimeError?: string };
      if (parsed.response) return { response: parsed.response, failure: null };
      return {
        response: null,
        failure: { kind: "function-error", message: `runtime: ${parsed.runtimeError ?? "no response"}` },
        exit: null,
      };
    }
    if (outcome.kind === "exit")
      return { response: null, failure: await classifyExit(outcome.exit), exit: outcome.exit };
    const exit = await this.kill();
    if (outcome.kind === "timeout") {
      return {
        response: null,
        failure: { kind: "timeout", message: `Task timed out after ${timeoutSeconds} seconds` },
        exit,
      };
    }
    return { response: null, failure: { kind: "platform", message: "invocation aborted" }, exit };
  }

  /**
   * Waits until the runtime has loaded the agent (its ready line), it dies, the abort signal
   * fires or the readiness limit passes: not part of the function timeout.
   */
  private async waitUntilReady(
    signal: AbortSignal | undefined,
  ): Promise<{ kind: "ready" } | { kind: "exit"; exit: AgentExit } | { kind: "limit" } | { kind: "abort" }> {
    if (this.readyState === "ready") return { kind: "ready" };
    if (this.exitInfo) return { kind: "exit", exit: this.exitInfo };
    let cleanup = () => {};
    const result = await new Promise<
      { kind: "ready" } | { kind: "exit"; exit: AgentExit } | { kind: "limit" } | { kind: "abort" }
    >((resolveReady) => {
      const timer = setTimeout(() => resolveReady({ kind: "limit" }), AGENT_READY_LIMIT_SECONDS * 1000);
      const onReady = () => resolveReady({ kind: "ready" });
      const onExit = (exit: AgentExit) => resolveReady({ kind: "exit", exit });
      const onAbort = () => resolveReady({ kind: "abort" });
      this.readyWaiters.push(onReady);
      this.exitWaiters.push(onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      cleanup = () => {
        clearTimeout(timer);
        removeItem(this.readyWaiters, onReady);
        removeItem(this.exitWaiters, onExit);
        signal?.removeEventListener("abort", onAbort);
      };
    });
    cleanup();
    return result;
  }

  /** Kills the agent (SIGKILL, as Lambda does at a timeout) and waits for its exit. */
  async kill(): Promise<AgentExit> {
    if (this.exitInfo) return this.exitInfo;
    const exited = new Promise<AgentExit>((resolveExit) => this.exitWaiters.push(resolveExit));
    this.child.kill("SIGKILL");
    return exited;
  }
}

function removeItem<T>(list: T[], item: T): void {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
}
