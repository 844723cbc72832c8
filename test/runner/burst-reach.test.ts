import assert from "node:assert/strict";
import { test } from "node:test";
import { describePlan } from "../../src/cli/commands/run-preflight.js";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { builtInProfiles } from "../../src/plan/lab-profile.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import type { PlanInput } from "../../src/plan/plan-schema.js";
import { presetNames, presets } from "../../src/plan/presets.js";
import { burstReach, labBurstLink, planBurstWarnings } from "../../src/runner/burst-reach.js";
import { estimatePlan } from "../../src/runner/run-estimate.js";

/**
 * Plans that can reach their sustained rate: a cell whose transfer cannot pass its burst at the
 * rate it can reach is named before the run. The quick preset's single stream (384 MiB, one S3
 * connection) on default-625: one connection reaches 720 Mbit/s, 122 over the 598 of payload the
 * link sustains, so the 260 MB bucket lasts 17 s and 1.5 GB; 403 MB ends inside it.
 */
const singleStream = { kind: "s3-get", objectMib: 384, concurrency: 1, chunkMib: 8 } as const;
const planOn = (targets: PlanInput["targets"], probes: PlanInput["probes"]) =>
  validatePlan({ targets, memoryMb: [1024], architectures: ["arm64"], repetitions: 1, probes });
const lab = [{ platform: "local", profile: "default-625" }] as const;
const defaultLab = builtInProfiles.find((p) => p.name === "default-625");

test("one S3 connection on default-625: 384 MiB ends inside the burst; the warning says what a sustained rate needs", () => {
  const [warning, ...rest] = planBurstWarnings(planOn([...lab], [singleStream]));
  assert.equal(rest.length, 0);
  assert.match(
    warning ?? "",
    /^default-625 1,024 MB s3-get 384 MiB conc 1 chunk 8 MiB: one connection reaches 720 Mbit\/s, which drains the 260 MB burst above the 598 sustained in 17\.0 s \(1\.5 GB\): the transfer \(403 MB\) ends inside or too soon after it; a sustained rate needs about 2\.8 GB \(34\.0 s\), or more connections/,
  );
  // four connections reach the peak (2,678 of payload): the bucket lasts 1 s, 1 GiB passes it
  assert.deepEqual(
    planBurstWarnings(planOn([...lab], [{ ...singleStream, objectMib: 1024, concurrency: 4 }])),
    [],
  );
  // one connection at 3 GiB passes too
  assert.deepEqual(planBurstWarnings(planOn([...lab], [{ ...singleStream, objectMib: 3072 }])), []);
});

test("the reach is the peak or the connections' cap, whichever is lower; without a cap one connection takes the peak", () => {
  assert.ok(defaultLab);
  const [cell] = expandPlan(planOn([...lab], [singleStream]));
  assert.ok(cell);
  const uncapped = labBurstLink(cell, { ...defaultLab, s3ConnectionBytesPerSecond: null });
  assert.ok(uncapped);
  const reach = burstReach({ bytes: 512 * 1_048_576, connections: 1 }, uncapped);
  assert.ok(Math.abs(reach.reachBitsPerSecond / 1e6 - 2678) < 1, `${reach.reachBitsPerSecond}`);
  assert.ok(reach.passes);
  // a timed test: 4 streams at the peak, 1 s of burst; -t 1 cannot show a sustained rate, -t 2 can
  const link = labBurstLink(cell, defaultLab);
  assert.ok(link);
  assert.equal(burstReach({ seconds: 1, connections: 4 }, link).passes, false);
  assert.equal(burstReach({ seconds: 2, connections: 4 }, link).passes, true);
});

test("every preset's cells can pass their burst, on their lab targets and on AWS at the default quota (seed: the study as published)", () => {
  for (const name of presetNames) {
    const plan = validatePlan(presets[name]);
    assert.deepEqual(planBurstWarnings(plan), [], name);
    if (name === "seed" || name === "streams") continue;
    const aws = validatePlan({ ...presets[name], targets: [{ platform: "aws", region: "us-west-2" }] });
    assert.deepEqual(planBurstWarnings(aws), [], `${name} on AWS`);
  }
});

test("the dry run's plan says it before anything runs: AWS at the default quota and the published burst", () => {
  const plan = planOn([{ platform: "aws", region: "us-west-2" }], [singleStream]);
  const estimate = estimatePlan(plan);
  assert.equal(estimate.burstWarnings.length, 1);
  const text = describePlan(plan, estimate, 400);
  assert.match(
    text,
    /warning: no sustained rate to expect: us-west-2 1,024 MB s3-get 384 MiB conc 1 chunk 8 MiB: one connection reaches 720 Mbit\/s, which drains the 311 MB burst above the 625 sustained/,
  );
  // a raised quota above what one connection gets: no burst to outlast
  const raised = estimatePlan(plan, {
    regionFacts: new Map([["us-west-2", { serverInstanceType: null, quotaMbps: 3000 }]]),
  });
  assert.deepEqual(raised.burstWarnings, []);
});
