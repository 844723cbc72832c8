import type { ProbeErrorKind } from "../probes/probe-error.js";
import type { ProbeSummary } from "../probes/probe-summary.js";

/** Who answered: the execution environment and whether this was its first invocation. */
export interface InvocationIdentity {
  environmentId: string;
  invocationNumber: number;
  cold: boolean;
}

export interface AgentSuccess {
  ok: true;
  probe: string;
  summary: ProbeSummary | null;
  detail: unknown;
  invocation: InvocationIdentity;
  startedAt: string;
  durationSeconds: number;
}

export interface AgentFailure {
  ok: false;
  probe: string | null;
  error: { kind: ProbeErrorKind; message: string };
  invocation: InvocationIdentity;
  startedAt: string;
  durationSeconds: number;
}

/** The JSON an invocation returns (Lambda payload or lab child output). */
export type AgentResponse = AgentSuccess | AgentFailure;
