import assert from "node:assert/strict";
import { test } from "node:test";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { MissingPeerError } from "../../src/probes/event-peers.js";
import {
  iperf3ServerSeconds,
  movesData,
  plannedProbe,
  probeDescriptors,
  probeNamed,
} from "../../src/probes/registry.js";
import { buildEvent } from "../../src/runner/build-event.js";

test("every descriptor's name is its event's `probe`, and a planned one's spec `kind` too", () => {
  for (const descriptor of probeDescriptors) {
    assert.equal(probeNamed(descriptor.name), descriptor);
    assert.ok(descriptor.eventSchema.safeParse({ probe: "no-such-probe" }).success === false);
    if (!descriptor.plan) continue;
    const spec = descriptor.plan.specSchema.parse({ kind: descriptor.name });
    assert.equal((spec as { kind: string }).kind, descriptor.name);
    assert.ok(descriptor.plan.label(spec as never).startsWith(descriptor.name));
  }
  assert.equal(probeNamed("no-such-probe"), undefined);
});

test("the runner's event for each planned probe passes the agent's own schema", () => {
  const plan = validatePlan({
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    probes: [
      { kind: "iperf3" },
      { kind: "s3-get" },
      { kind: "s3-put" },
      { kind: "bucket" },
      { kind: "latency" },
      { kind: "info" },
    ],
  });
  const context = {
    runId: "run-1",
    repetition: 1,
    endpoints: {
      iperf3: { host: "198.18.0.1", ports: [5201] },
      s3: { endpoint: "https://198.18.0.2:9000", region: "us-east-1", bucket: "lnb-test", pathStyle: true },
    },
    iperf3Port: 5201,
    s3ObjectKey: "objects/1gib",
  };
  const cells = expandPlan(plan);
  assert.deepEqual(
    [...new Set(cells.map((cell) => cell.probe.kind))],
    ["iperf3", "s3-get", "s3-put", "bucket", "latency", "info"],
  );
  for (const cell of cells) {
    const event = buildEvent(cell, context);
    const descriptor = probeNamed(event.probe);
    assert.ok(
      descriptor?.eventSchema.safeParse(event).success,
      `${cell.probeLabel}: ${JSON.stringify(event)}`,
    );
  }
  const put = cells.find((cell) => cell.probe.kind === "s3-put");
  assert.ok(put);
  assert.equal(
    (buildEvent(put, context) as { key: string }).key,
    `lambda-netbench/put/run-1/${put.id}-1`,
    "s3-put writes under the default prefix, one key per invocation",
  );
  const latency = cells.find((cell) => cell.probe.kind === "latency");
  assert.ok(latency);
  assert.deepEqual(
    (buildEvent(latency, context) as { iperf3?: unknown }).iperf3,
    { host: "198.18.0.1", port: 5201, connects: 20 },
    "latency times TCP connects to the iperf3 server when the target has one",
  );
  assert.equal(
    (buildEvent(latency, { ...context, endpoints: { s3: context.endpoints.s3 } }) as { iperf3?: unknown })
      .iperf3,
    undefined,
    "and runs without one",
  );
  const bucket = cells.find((cell) => cell.probe.kind === "bucket");
  assert.ok(bucket);
  assert.throws(
    () => buildEvent(bucket, { ...context, endpoints: { s3: context.endpoints.s3 } }),
    (error: unknown) => error instanceof MissingPeerError && /no iperf3 server/.test(error.message),
  );
});

test("the iperf3 server's busy time covers the bucket schedule as well as an iperf3 test", () => {
  assert.equal(
    iperf3ServerSeconds({ probe: "iperf3", host: "198.18.0.1", timeSeconds: 10, omitSeconds: 2 }),
    12,
  );
  // defaults: rest = longest gap 8, transfer 5, gaps 15.85, 7 refills of 2 s
  const bucketSeconds = iperf3ServerSeconds({ probe: "bucket", host: "198.18.0.1" });
  assert.ok(
    bucketSeconds !== null && Math.abs(bucketSeconds - (8 + 5 + 15.85 + 7 * 2)) < 1e-9,
    `${bucketSeconds}`,
  );
  assert.equal(iperf3ServerSeconds({ probe: "info" }), null);
});

test("info and latency move no data (latency's bytes are no rate); every other planned probe does, and a name no probe has counts as moving data", () => {
  assert.equal(movesData("info"), false);
  assert.equal(movesData("latency"), false);
  for (const name of ["iperf3", "s3-get", "s3-put", "bucket", "latency-from-the-future"])
    assert.equal(movesData(name), true, name);
  assert.equal(
    plannedProbe({ kind: "s3-get" }).testObjectBytes({
      kind: "s3-get",
      objectMib: 2,
      concurrency: 1,
      chunkMib: 1,
    }),
    2 * 1_048_576,
  );
});
