import type { AgentResponse } from "../agent/agent-response.js";

/** How one invocation ended, as a platform reports it: what a result record is built from. */
export type InvocationFailureKind = "function-error" | "timeout" | "out-of-memory" | "throttled" | "platform";

export interface InvocationOutcome {
  /** The agent's response when the invocation returned one (it may itself report a probe failure). */
  response: AgentResponse | null;
  /** Set when the invocation itself failed (crash, timeout, OOM, throttling...). */
  failure: { kind: InvocationFailureKind; message: string } | null;
  startedAt: string;
  durationSeconds: number;
}
