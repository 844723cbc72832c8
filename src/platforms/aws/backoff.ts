/**
 * Which AWS errors are worth another attempt, and the default retry policy for the Lambda
 * calls (the backoff itself is the tool's one policy, probes/retry-backoff.ts).
 */
export const defaultBackoff = { maxAttempts: 6, baseMs: 200, capMs: 20_000 };

/** Names of the errors AWS returns for throttling and for an update already in progress. */
export const throttlingErrorNames = new Set([
  "TooManyRequestsException",
  "ThrottlingException",
  "Throttling",
  "ThrottledException",
  "RequestLimitExceeded",
  "SlowDown",
]);
/** An update in progress, or a function not active yet: worth waiting for. */
export const conflictErrorNames = new Set(["ResourceConflictException", "ResourceNotReadyException"]);

export function errorName(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const named = error as { name?: unknown; Code?: unknown };
    if (typeof named.name === "string") return named.name;
    if (typeof named.Code === "string") return named.Code;
  }
  return "Error";
}

export function isThrottling(error: unknown): boolean {
  return throttlingErrorNames.has(errorName(error));
}

export function isThrottlingOrConflict(error: unknown): boolean {
  const name = errorName(error);
  return throttlingErrorNames.has(name) || conflictErrorNames.has(name);
}
