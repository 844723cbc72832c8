import type { AgentResponse } from "../agent/agent-response.js";

/** How one invocation ended, as a platform reports it: what a result record is built from. */
export type InvocationFailureKind = "function-error" | "timeout" | "out-of-memory" | "throttled" | "platform";

/**
 * What the cloud side's server (the iperf3 server, or the S3 server) spent on CPU while one
 * invocation ran, where the platform can see it (the lab; not AWS): the evidence that a slow
 * result was the server's limit, not the environment's.
 */
export interface ServerCpuUse {
  /** The server processes measured, e.g. "iperf3 server :5201 (ours)" or "nginx + S3 control server". */
  server: string;
  /** user + system CPU seconds of those processes from the invocation's start to its end. */
  seconds: number;
  /** The wall time those seconds were measured over (the whole invocation). */
  wallSeconds: number;
  /** The most CPU the server can use, in cores (1 for a single-threaded server). */
  capacityCores: number;
}

export interface InvocationOutcome {
  /** The agent's response when the invocation returned one (it may itself report a probe failure). */
  response: AgentResponse | null;
  /** Set when the invocation itself failed (crash, timeout, OOM, throttling...). */
  failure: { kind: InvocationFailureKind; message: string } | null;
  startedAt: string;
  durationSeconds: number;
  /** The server side's CPU over this invocation; absent where the platform cannot see it. */
  serverCpu?: ServerCpuUse | null;
}
