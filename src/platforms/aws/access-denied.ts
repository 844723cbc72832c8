import { errorName } from "./backoff.js";

/**
 * AWS's refusals of a call the credentials may not make, as each protocol names them: an IAM
 * policy without the permission, or an organization's service control policy that denies it
 * explicitly (the message then says "with an explicit deny in a service control policy").
 */
const deniedNames = new Set([
  "AccessDenied",
  "AccessDeniedException",
  "UnauthorizedOperation",
  "UnauthorizedException",
  "AuthorizationError",
  "Forbidden",
]);

export function isAccessDenied(error: unknown): boolean {
  return deniedNames.has(errorName(error));
}

/** The action AWS names in its refusal ("is not authorized to perform: scheduler:ListSchedules"), or null. */
export function deniedAction(error: unknown): string | null {
  const message = error instanceof Error ? error.message : "";
  return /not authorized to perform:? ([a-z0-9-]+:[A-Za-z0-9]+)/.exec(message)?.[1] ?? null;
}

/** Whether the refusal came from a service control policy (the organization's, not the account's). */
export function deniedByScp(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return /service control policy/i.test(message);
}
