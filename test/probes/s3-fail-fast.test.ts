import assert from "node:assert/strict";
import { test } from "node:test";
import { isProbeError } from "../../src/probes/probe-error.js";
import { runS3GetProbe } from "../../src/probes/s3/run-s3-get.js";
import { getEvent } from "../helpers/s3-events.js";

/**
 * Issue 11: no credentials and DNS failures fail at once, not after five retries. Every retry
 * would wait almost its whole ceiling (jitter pinned at 0.999): five take 17 s at a 1 s base
 * (capped at 5 s each), against the 8 s a starved nice-19 test process is allowed.
 */
const PINNED_BACKOFF = { backoffBaseMs: 1000, backoffRandom: () => 0.999 };
const NO_RETRY_SECONDS = 8;
test("missing credentials: one clear error naming AWS_PROFILE and the variables, no retries", async () => {
  const started = performance.now();
  let calls = 0;
  await assert.rejects(
    runS3GetProbe(getEvent({ endpoint: "https://198.18.0.2", bucket: "bench", key: "k", maxRetries: 5 }), {
      credentials: async () => {
        calls += 1;
        throw Object.assign(new Error("Could not load credentials from any providers"), {
          name: "CredentialsProviderError",
        });
      },
      ...PINNED_BACKOFF,
    }),
    (error: unknown) =>
      isProbeError(error) &&
      error.kind === "auth-failed" &&
      /AWS_PROFILE/.test(error.message) &&
      /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/.test(error.message),
  );
  assert.equal(calls, 1);
  assert.ok(performance.now() - started < NO_RETRY_SECONDS * 1000, "no backoff");
});

test("a host that does not resolve fails at once with a DNS message", async () => {
  const started = performance.now();
  await assert.rejects(
    runS3GetProbe(
      getEvent({ endpoint: "https://no-such-host.invalid", bucket: "bench", key: "k", maxRetries: 5 }),
      {
        credentials: async () => ({ accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" }),
        ...PINNED_BACKOFF,
      },
    ),
    (error: unknown) =>
      isProbeError(error) && error.kind === "unreachable" && /not found \(DNS\)/.test(error.message),
  );
  assert.ok(performance.now() - started < NO_RETRY_SECONDS * 1000, "no retries with backoff");
});
