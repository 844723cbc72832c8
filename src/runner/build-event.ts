import type { AgentEventInput } from "../agent/event.js";
import type { Cell } from "../plan/cell.js";
import { plannedProbe } from "../probes/registry.js";
import type { ProbeEndpoints } from "./platform.js";

/** What the runner resolved before the invocation: the server port and the test object. */
export interface EventContext {
  runId: string;
  repetition: number;
  endpoints: ProbeEndpoints;
  iperf3Port?: number;
  s3ObjectKey?: string;
}

/**
 * The agent event for one invocation of a cell: the plan's probe parameters plus the target's
 * endpoints, as the probe's descriptor builds it. Throws (with a message for the record) when
 * the target lacks the peer the probe needs.
 */
export function buildEvent(cell: Cell, context: EventContext): AgentEventInput {
  return plannedProbe(cell.probe).buildEvent(cell.probe, {
    invocationName: `${context.runId}/${cell.id}-${context.repetition}`,
    peers: context.endpoints,
    ...(context.iperf3Port !== undefined ? { iperf3Port: context.iperf3Port } : {}),
    ...(context.s3ObjectKey !== undefined ? { s3ObjectKey: context.s3ObjectKey } : {}),
  });
}
