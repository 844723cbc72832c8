import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { readManifest, readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { LoopbackPlatform, loopProfile } from "../helpers/loopback-platform.js";

let parentDir: string;
before(async () => {
  parentDir = await mkdtemp(join(tmpdir(), "lnbr-run-"));
});
after(async () => {
  await rm(parentDir, { recursive: true, force: true });
});

const plan = validatePlan({
  name: "loop",
  targets: [{ platform: "local", profile: "loop-a" }],
  // the loopback platform ignores the profile's figures; the plan must still define the name
  profiles: [loopProfile("loop-a")],
  memoryMb: [1024, 2048],
  repetitions: 2,
  parallelism: 3,
  probes: [
    { kind: "iperf3", timeSeconds: 1, parallel: 2 },
    { kind: "iperf3", timeSeconds: 1, parallel: 1, direction: "download", repetitions: 1 },
    { kind: "info" },
  ],
});

test("a run records every invocation, bounded by the platform and one test per server port", async () => {
  let platform: LoopbackPlatform | undefined;
  const order: string[] = [];
  const result = await runPlan({
    start: { plan, parentDir, source: { preset: null, configPath: null, regions: null } },
    openPlatform: async (target) => {
      platform = await LoopbackPlatform.open({
        target: target.platform === "local" ? target.profile : "x",
        servers: 1,
        concurrency: 3,
      });
      return platform;
    },
    onEvent: (event) => {
      if (event.type === "started")
        order.push(`${event.task.cell.probeLabel}@${event.task.cell.memoryMb}#${event.task.repetition}`);
    },
  });
  assert.ok(platform);
  assert.equal(result.remaining, 0);
  const { records } = await readRecords(result.dir);
  const measured = records.filter((r) => !r.warmup);
  // 2 memory sizes x (2 + 1 + 2) repetitions
  assert.equal(measured.length, 10);
  assert.equal(records.filter((r) => r.warmup).length, 2, "one warm-up per memory size");
  assert.equal(platform.portCollisions, 0, "never two iperf3 tests on one port");
  assert.ok(
    platform.maxInFlightSeen <= 3,
    `at most maxConcurrency at once (saw ${platform.maxInFlightSeen})`,
  );
  assert.ok(platform.maxInFlightSeen >= 2, "info runs beside iperf3 when the platform allows");
  const iperf = measured.filter((r) => r.probe === "iperf3");
  for (const record of iperf) {
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.ok((record.bitsPerSecond ?? 0) > 1e6, "real bytes moved over loopback");
    assert.ok((record.samples?.bytes.length ?? 0) >= 3);
  }
  // interleaved: every first repetition is started before any second one
  const firstSecond = order.findIndex((label) => label.endsWith("#2"));
  assert.ok(
    order.slice(firstSecond).every((label) => label.endsWith("#2")),
    order.join(", "),
  );
  const manifest = await readManifest(result.dir);
  assert.ok(manifest.completedAt);
  assert.equal(manifest.platforms["local:loop-a"]?.emulated, true);
  const text = await readFile(join(result.dir, "results.jsonl"), "utf8");
  assert.ok(text.endsWith("\n"));
});
