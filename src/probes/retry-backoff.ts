/**
 * The one retry policy of the tool: the probes' S3 requests and the AWS control-plane calls
 * both wait base x 2^(n-1) before the n-th retry, capped, and then a random part of that
 * ("full jitter", as the AWS SDKs do), so clients failing together do not retry in step.
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

/** How long to wait before retry number `retryNumber` (1 for the first retry), ms. */
export function backoffDelayMs(
  retryNumber: number,
  baseMs: number,
  capMs = 5_000,
  random = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.floor(random() * ceiling);
}

/** Runs `operation` until it succeeds, fails with an error not worth retrying, or runs out of attempts. */
export async function withBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  options: BackoffOptions,
): Promise<{ value: T; retries: number }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      return { value: await operation(attempt), retries: attempt };
    } catch (error) {
      if (attempt + 1 >= options.maxAttempts || !options.retryable(error) || options.signal?.aborted)
        throw error;
      const delayMs = backoffDelayMs(attempt + 1, options.baseMs, options.capMs, options.random);
      options.onRetry?.(error, attempt + 1, delayMs);
      await sleep(delayMs);
    }
  }
}

/** Resolves after `ms`, or at once when the signal aborts (the probe's deadline or a failure elsewhere). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
