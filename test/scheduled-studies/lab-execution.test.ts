import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { S3Client } from "@aws-sdk/client-s3";
import { validatePlan } from "../../src/plan/load-plan.js";
import { loadReportModel } from "../../src/report/write-report.js";
import type { Platform } from "../../src/runner/platform.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { pullRuns } from "../../src/scheduled-studies/pull-runs.js";
import { usePrivateLab } from "../helpers/private-lab.js";
import { rootSkip } from "../helpers/root-gate.js";
import { type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { assertSameRecords } from "./compare-records.js";
import { executeScheduleLocally, s3rverClient } from "./local-state-machine.js";

/**
 * One execution of the schedule's state machine (aws-local-stepfunctions) with its Lambda tasks
 * bound to a private lab's environments produces the same records as `run` on that lab: every
 * probe kind, warm-ups included. Then `report` reads the pulled run. On default-625 at 1/5 of
 * its rates: what is compared is the records, not the host's speed.
 */
const skip = rootSkip("the scheduled run on the lab");
const bucket = "lnb-lab-region-bucket";
const scaled = scaledProfile("default-625", 5);
const lab = usePrivateLab(skip, {
  profile: scaled.name,
  customProfiles: [scaled.profile],
  environments: 1,
  mode: "shaped",
});
let s3rver: S3rverInstance;
let s3: S3Client;
let work: string;

before(async () => {
  if (skip) return;
  s3rver = await startS3rver({ buckets: [bucket] });
  s3 = s3rverClient(s3rver.endpoint);
  work = await mkdtemp(join(tmpdir(), "lnb-schedule-lab-"));
});

after(async () => {
  if (skip) return;
  s3?.destroy();
  await s3rver?.close();
  await rm(work, { recursive: true, force: true });
});

const plan = validatePlan({
  name: "labsched",
  targets: [{ platform: "local", profile: scaled.name }],
  profiles: [scaled.profile],
  memoryMb: [1024, 2048],
  repetitions: 1,
  parallelism: 1,
  probes: [
    { kind: "iperf3", timeSeconds: 2, parallel: 2 },
    { kind: "s3-get", objectMib: 8, concurrency: 2, chunkMib: 4 },
    { kind: "s3-put", sizeMib: 8, partMib: 5, concurrency: 2 },
    { kind: "info" },
  ],
});

test("a scheduled execution on the lab records what `run` records on the lab", { skip }, async () => {
  const kept: Platform = Object.assign(Object.create(lab.platform) as Platform, { dispose: async () => {} });
  const run = await runPlan({
    start: {
      plan,
      parentDir: join(work, "run"),
      source: { preset: null, configPath: "plan.json", regions: null },
    },
    openPlatform: async () => kept,
  });
  assert.equal(run.remaining, 0);
  const { output } = await executeScheduleLocally({
    platform: lab.platform,
    plan,
    mode: "inline",
    name: "lab",
    s3,
    bucket,
    executionName: "lab-1",
  });
  assert.equal(output.finish.complete, true);
  await pullRuns({ s3, bucket, outDir: join(work, "pulled") });
  const dir = join(work, "pulled", output.run.runId);
  const records = await assertSameRecords(run.dir, dir);
  assert.deepEqual(
    [...new Set(records.map((r) => r.probe))].sort(),
    ["info", "iperf3", "s3-get", "s3-put"],
    "every probe kind",
  );
  for (const record of records)
    assert.equal(record.ok, true, `${record.probeLabel}: ${JSON.stringify(record.error)}`);
  assert.equal(records.filter((r) => r.warmup).length, 2, "one warm-up per memory size");
  const model = await loadReportModel(dir);
  assert.ok(model, "report reads the pulled run");
});
