import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentEvent } from "../../src/agent/event.js";
import { handleEvent } from "../../src/agent/handler.js";

test("an iperf3 event gets its defaults", () => {
  const event = parseAgentEvent({ probe: "iperf3", host: "198.18.0.1" });
  assert.equal(event.probe, "iperf3");
  if (event.probe !== "iperf3") return;
  assert.equal(event.port, 5201);
  assert.equal(event.parallel, 1);
  assert.equal(event.timeSeconds, 10);
});

test("a bad event names the field and what is allowed", () => {
  assert.throws(() => parseAgentEvent({ probe: "iperf3", host: "h", parallel: 0 }), /parallel: .*>=1/);
  assert.throws(() => parseAgentEvent({ probe: "nope" }), /probe: .*'iperf3' \| 's3-get'/);
  assert.throws(() => parseAgentEvent({ probe: "info", extra: 1 }), /Unrecognized key: "extra"/);
  assert.throws(
    () => parseAgentEvent({ probe: "iperf3", host: "h", reverse: true, bidir: true }),
    /bidir: .*exclusive/,
  );
});

test("the handler never throws and reports invalid input as such", async () => {
  const response = await handleEvent({ probe: "s3-get" });
  assert.equal(response.ok, false);
  if (response.ok) return;
  assert.equal(response.error.kind, "invalid-input");
  assert.match(response.error.message, /bucket/);
});

test("the info probe counts invocations of one environment", async () => {
  const first = await handleEvent({ probe: "info" });
  const second = await handleEvent({ probe: "info" });
  assert.equal(first.invocation.environmentId, second.invocation.environmentId);
  assert.equal(second.invocation.invocationNumber, first.invocation.invocationNumber + 1);
  assert.equal(second.invocation.cold, false);
  assert.ok(first.ok);
  if (!first.ok) return;
  const detail = first.detail as { memoryLimitMb: number; vcpus: number; arch: string };
  assert.ok(detail.memoryLimitMb > 0);
  assert.ok(detail.vcpus >= 1);
  assert.equal(detail.arch, process.arch === "x64" ? "x86_64" : process.arch);
});
