/**
 * Retries with exponential backoff and full jitter (sleep a random time between 0 and
 * min(cap, base * 2^attempt)), the scheme AWS recommends for throttling, so many runners
 * hitting one account do not retry in lockstep.
 */
export interface BackoffOptions {
  maxAttempts: number;
  baseMs: number;
  capMs: number;
  /** Which errors are worth another attempt. */
  retryable: (error: unknown) => boolean;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  signal?: AbortSignal;
}

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

export async function withBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  options: BackoffOptions,
): Promise<{ value: T; retries: number }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return { value: await operation(attempt), retries: attempt };
    } catch (error) {
      if (attempt + 1 >= options.maxAttempts || !options.retryable(error) || options.signal?.aborted)
        throw error;
      const delayMs = Math.floor(random() * Math.min(options.capMs, options.baseMs * 2 ** attempt));
      options.onRetry?.(error, attempt + 1, delayMs);
      await sleep(delayMs);
    }
  }
}
