import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AwsPlatform } from "../../../src/platforms/aws/aws-platform.js";
import { CredentialsExpiredError } from "../../../src/platforms/aws/expired-credentials.js";
import { generateIperf3Secrets } from "../../../src/platforms/aws/iperf3-credentials.js";
import { RunPausedError } from "../../../src/runner/platform.js";
import { type AwsStub, deployedRegion, restJson, restJsonError, testCredentials } from "./aws-stub.js";

/**
 * Breakers 1, 5 and 6 at the platform: an expired login or the server's time-to-live pauses
 * the run (nothing recorded, so --resume redoes the cell); a busy server is retried.
 */
const secrets = generateIperf3Secrets();
const answer = (ok: boolean) => ({
  ok,
  probe: "iperf3",
  ...(ok
    ? { summary: null, detail: {} }
    : { error: { kind: "server-busy", message: "busy running another test" } }),
  invocation: { environmentId: "e1", invocationNumber: 1, cold: false },
  startedAt: "2026-11-30T12:00:00Z",
  durationSeconds: 1,
});

async function platform(expiresAt: string, invoke: Parameters<AwsStub["on"]>[1][]) {
  const stub = deployedRegion({ secrets, padding: "pkcs1", serverExpiresAt: expiresAt }).on(
    "Invoke",
    ...invoke,
  );
  const opened = await AwsPlatform.open({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    waiter: { minDelaySeconds: 0.01, maxDelaySeconds: 0.02, maxWaitSeconds: 5 },
    backoff: { baseMs: 1, capMs: 5 },
    serverBusyRetryMs: [1, 1, 1],
  });
  await opened.prepare([{ memoryMb: 2048, arch: "arm64" }]);
  return { platform: opened, stub };
}

const variant = { memoryMb: 2048, arch: "arm64" as const };
const iperf3 = { probe: "iperf3" as const, host: "198.18.0.1", port: 5201, timeSeconds: 10 };
const later = new Date(Date.now() + 3 * 3_600_000).toISOString();

describe("run pauses instead of recording failures; busy server retried", () => {
  test("breaker 5: Invoke answered ExpiredTokenException (403) -> CredentialsExpiredError saying how to log in", async () => {
    const { platform: p } = await platform(later, [
      restJsonError("ExpiredTokenException", "The security token included in the request is expired", 403),
    ]);
    await assert.rejects(p.invoke(variant, { probe: "info" }), (error: Error) => {
      assert.ok(error instanceof CredentialsExpiredError && error instanceof RunPausedError);
      assert.match(error.message, /credentials expired \(ExpiredTokenException/);
      assert.match(error.message, /log in again|aws sso login|export AWS_ACCESS_KEY_ID/);
      return true;
    });
  });

  test("breaker 1: an iperf3 cell that cannot finish before the server's TTL pauses, with no Invoke", async () => {
    const soon = new Date(Date.now() + 30_000).toISOString();
    const { platform: p, stub } = await platform(soon, [restJson(answer(true))]);
    await assert.rejects(p.invoke(variant, iperf3), (error: Error) => {
      assert.ok(error instanceof RunPausedError);
      assert.match(error.message, /terminates itself at .*--ttl-hours/);
      return true;
    });
    assert.ok(!stub.operations().includes("Invoke"));
  });

  test("breaker 6: a busy server (ACCESS_DENIED) is retried, then the test runs", async () => {
    const { platform: p, stub } = await platform(later, [
      restJson(answer(false)),
      restJson(answer(false)),
      restJson(answer(true)),
    ]);
    const outcome = await p.invoke(variant, iperf3);
    assert.equal(outcome.response?.ok, true);
    assert.equal(stub.operations().filter((op) => op === "Invoke").length, 3);
  });
});
