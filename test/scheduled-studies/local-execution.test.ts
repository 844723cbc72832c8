import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { S3Client } from "@aws-sdk/client-s3";
import { validatePlan } from "../../src/plan/load-plan.js";
import { readRecords } from "../../src/results/run-directory.js";
import type { Platform } from "../../src/runner/platform.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { pullRuns } from "../../src/scheduled-studies/pull-runs.js";
import { LoopbackPlatform, loopProfile } from "../helpers/loopback-platform.js";
import { type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";
import { assertSameRecords } from "./compare-records.js";
import { executeScheduleLocally, s3rverClient } from "./local-state-machine.js";

/**
 * The schedule's state machine executed by aws-local-stepfunctions on the loopback platform
 * (the real agent handler against stock iperf3 servers; no root needed), its recorder writing
 * to s3rver, the run pulled back with `runs pull`'s code and compared with `run`'s records.
 * The lab version (root) is lab-execution.test.ts.
 */
const bucket = "lnb-region-bucket";
let s3rver: S3rverInstance;
let s3: S3Client;
let work: string;

before(async () => {
  s3rver = await startS3rver({ buckets: [bucket] });
  s3 = s3rverClient(s3rver.endpoint);
  work = await mkdtemp(join(tmpdir(), "lnb-schedule-"));
});
after(async () => {
  s3.destroy();
  await s3rver.close();
  await rm(work, { recursive: true, force: true });
});

const plan = validatePlan({
  name: "loopsched",
  profiles: [loopProfile("loop-a")],
  targets: [{ platform: "local", profile: "loop-a" }],
  memoryMb: [1024, 2048],
  repetitions: 2,
  parallelism: 2,
  probes: [{ kind: "iperf3", timeSeconds: 1, parallel: 1 }, { kind: "info" }],
});

/** The runner disposes what it opens; the scheduled execution needs the same platform after it. */
function kept(platform: Platform): Platform {
  return Object.assign(Object.create(platform) as Platform, { dispose: async () => {} });
}

describe("a scheduled run on the loopback platform", () => {
  test("Distributed Map (ItemReader emulated): the same records as `run`, pulled into a run directory", async () => {
    const platform = await LoopbackPlatform.open({ target: "loop-a", servers: 2, concurrency: 2 });
    try {
      const run = await runPlan({
        start: {
          plan,
          parentDir: join(work, "run"),
          source: { preset: null, configPath: "plan.json", regions: null },
        },
        openPlatform: async () => kept(platform),
      });
      const { output, readItems } = await executeScheduleLocally({
        platform,
        plan,
        mode: "distributed",
        name: "loop",
        s3,
        bucket,
        executionName: "loop-1",
      });
      assert.deepEqual(readItems, [`${bucket}/schedules/loop/tasks.json`], "the ItemReader's Bucket and Key");
      assert.equal(output.finish.complete, true);
      assert.equal(platform.portCollisions, 0, "never two iperf3 tests on one port");
      const pulled = await pullRuns({ s3, bucket, outDir: join(work, "pulled") });
      assert.equal(pulled.pulled.length, 1);
      const runId = pulled.pulled[0]?.runId as string;
      assert.match(
        runId,
        /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-loopsched$/,
        "named as `run` names its directory",
      );
      const records = await assertSameRecords(run.dir, join(work, "pulled", runId));
      assert.ok(records.every((r) => r.ok));
      assert.ok(records.filter((r) => r.probe === "iperf3").every((r) => (r.bitsPerSecond ?? 0) > 1e6));
      const again = await pullRuns({ s3, bucket, outDir: join(work, "pulled") });
      assert.deepEqual(again.upToDate, [runId], "a complete run is not downloaded twice");
    } finally {
      await platform.dispose();
    }
  });

  test("Inline Map: throttled invocations are retried with backoff; one that stays throttled is recorded as throttled", async () => {
    const platform = await LoopbackPlatform.open({ target: "loop-a", servers: 1, concurrency: 2 });
    const attempts = new Map<number, number>();
    try {
      const { output } = await executeScheduleLocally({
        platform,
        plan: validatePlan({ ...plan, repetitions: 1, warmup: false, probes: [{ kind: "info" }] }),
        mode: "inline",
        name: "throttle",
        s3,
        bucket,
        executionName: "throttle-1",
        invoke: async (variant, event) => {
          const count = (attempts.get(variant.memoryMb) ?? 0) + 1;
          attempts.set(variant.memoryMb, count);
          // Lambda's answer when the account's concurrency is used up
          if (variant.memoryMb === 2048 || count <= 2)
            return {
              response: null,
              failure: { kind: "throttled", message: "Rate Exceeded." },
              startedAt: new Date().toISOString(),
              durationSeconds: 0,
            };
          return platform.invoke(variant, event);
        },
      });
      assert.equal(output.finish.complete, true, "every task has its record, failures included");
      assert.equal(attempts.get(1024), 3, "two throttled attempts, then the invocation");
      assert.equal(attempts.get(2048), 9, "the first attempt and 8 retries (MaxAttempts 8)");
      await pullRuns({ s3, bucket, outDir: join(work, "throttle") });
      const runId = output.run.runId as string;
      const { records } = await readRecords(join(work, "throttle", runId));
      const byMemory = new Map(records.map((r) => [r.memoryMb, r]));
      assert.equal(byMemory.get(1024)?.ok, true);
      assert.equal(byMemory.get(2048)?.ok, false);
      assert.equal(byMemory.get(2048)?.error?.kind, "throttled");
      assert.match(
        byMemory.get(2048)?.error?.message ?? "",
        /Lambda\.TooManyRequestsException: Rate Exceeded/,
      );
    } finally {
      await platform.dispose();
    }
  });
});
