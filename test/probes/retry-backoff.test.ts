import assert from "node:assert/strict";
import { test } from "node:test";
import { withBackoff } from "../../src/probes/retry-backoff.js";

const transient = Object.assign(new Error("slow down"), { name: "SlowDown" });
const fatal = Object.assign(new Error("denied"), { name: "AccessDenied" });

function options(slept: number[]) {
  return {
    maxAttempts: 4,
    baseMs: 100,
    capMs: 250,
    retryable: (error: unknown) => (error as Error).name === "SlowDown",
    random: () => 0.999_999,
    sleep: async (ms: number) => {
      slept.push(ms);
    },
  };
}

test("withBackoff: retries what is retryable with doubling, capped waits, and says how many retries it took", async () => {
  const slept: number[] = [];
  let calls = 0;
  const result = await withBackoff(async () => {
    calls += 1;
    if (calls < 4) throw transient;
    return "done";
  }, options(slept));
  assert.deepEqual(result, { value: "done", retries: 3 });
  assert.deepEqual(slept, [99, 199, 249]);
});

test("withBackoff: an error not worth retrying, or the last attempt's, is thrown as it came", async () => {
  const slept: number[] = [];
  await assert.rejects(
    withBackoff(async () => {
      throw fatal;
    }, options(slept)),
    fatal,
  );
  assert.deepEqual(slept, []);
  let calls = 0;
  await assert.rejects(
    withBackoff(async () => {
      calls += 1;
      throw transient;
    }, options(slept)),
    transient,
  );
  assert.equal(calls, 4, "maxAttempts counts the first try");
});
