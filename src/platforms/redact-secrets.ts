import type { AgentEventInput } from "../agent/event.js";

export const redactedMarker = "[redacted]";

/**
 * A copy of an invocation event safe to log or record: the iperf3 password replaced by a
 * marker (the public key and username are not secret). The runner records events through
 * this, on every platform.
 */
export function redactEventSecrets<T extends AgentEventInput | Record<string, unknown>>(event: T): T {
  const copy = structuredClone(event) as Record<string, unknown>;
  const auth = copy.auth;
  if (typeof auth === "object" && auth !== null && "password" in auth)
    (auth as Record<string, unknown>).password = redactedMarker;
  return copy as T;
}
