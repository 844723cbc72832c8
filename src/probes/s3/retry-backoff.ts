/**
 * Exponential backoff with jitter between retries of one request: base x 2^(n-1), capped,
 * then a random 50-100 % of it so parallel requests failing together do not retry in step.
 */
export function backoffDelayMs(retryNumber: number, baseMs: number, capMs = 5_000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, retryNumber - 1));
  return ceiling * (0.5 + Math.random() * 0.5);
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
