import { countInvocation } from "../probes/info.js";
import { isProbeError } from "../probes/probe-error.js";
import { runProbe } from "../probes/probe-runners.js";
import type { AgentResponse } from "./agent-response.js";
import { InvalidEventError, parseAgentEvent } from "./event.js";

/**
 * Validates the event, runs one probe and returns its result. Never throws: every failure
 * becomes `{ ok: false, error: { kind, message } }` so the runner records it with its kind.
 */
export async function handleEvent(rawEvent: unknown): Promise<AgentResponse> {
  const invocation = countInvocation();
  const startedAt = new Date().toISOString();
  const startMs = performance.now();
  const elapsed = () => (performance.now() - startMs) / 1000;
  const probe = probeName(rawEvent);
  try {
    const event = parseAgentEvent(rawEvent);
    const outcome = await runProbe(event);
    return { ok: true, probe: event.probe, ...outcome, invocation, startedAt, durationSeconds: elapsed() };
  } catch (error) {
    const kind = isProbeError(error)
      ? error.kind
      : error instanceof InvalidEventError
        ? "invalid-input"
        : "internal";
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, probe, error: { kind, message }, invocation, startedAt, durationSeconds: elapsed() };
  }
}

function probeName(rawEvent: unknown): string | null {
  if (typeof rawEvent !== "object" || rawEvent === null) return null;
  const probe = (rawEvent as { probe?: unknown }).probe;
  return typeof probe === "string" ? probe : null;
}
