import type { z } from "zod";
import type { BucketEvent } from "../probes/bucket/options.js";
import type { InfoEvent } from "../probes/diagnostics/options.js";
import type { Iperf3Auth, Iperf3Event } from "../probes/iperf3/options.js";
import { probeEventSchema } from "../probes/registry.js";
import type { S3GetEvent, S3PutEvent } from "../probes/s3/options.js";

/**
 * The event an execution environment receives: exactly one probe with its options.
 * Each probe owns its option schema (options.ts in its folder under src/probes); the probe
 * registry composes them, discriminated by `probe`, so a bad event is refused with the field and
 * the allowed values before any traffic flows.
 */

export type { BucketEvent, InfoEvent, Iperf3Auth, Iperf3Event, S3GetEvent, S3PutEvent };

export const agentEventSchema = probeEventSchema;

export type AgentEvent = z.output<typeof agentEventSchema>;
export type AgentEventInput = z.input<typeof agentEventSchema>;
export type ProbeKind = AgentEvent["probe"];

/** One line per problem: `field: what is wrong (allowed: ...)`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "(event)";
      return `${field}: ${issue.message}`;
    })
    .join("; ");
}

export function parseAgentEvent(input: unknown): AgentEvent {
  const parsed = agentEventSchema.safeParse(input);
  if (!parsed.success) throw new InvalidEventError(describeIssues(parsed.error));
  return parsed.data;
}

export class InvalidEventError extends Error {
  constructor(message: string) {
    super(`invalid event: ${message}`);
    this.name = "InvalidEventError";
  }
}
