import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { analyzeFleets, sustainedRate } from "../../src/results/fleet-analysis.js";
import { readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { withBenchLock } from "../helpers/bench-lock.js";
import { rootSkip } from "../helpers/root-gate.js";
import { ensureBuilt } from "./lab-helpers.js";

/**
 * Fleets on the real lab: 3 environments at once on default-625, each with its own shaped link,
 * must each get about what one gets alone, and together about 3x.
 */
let parentDir: string;
before(async () => {
  parentDir = await mkdtemp(join(tmpdir(), "lnbr-labfleet-"));
});
after(async () => {
  await rm(parentDir, { recursive: true, force: true });
});

const skip = rootSkip("the lab fleet test");

test("3 environments at once on default-625: each within 12% of one alone, aggregate about 3x (sustained)", {
  skip,
  timeout: 900_000,
}, async () => {
  ensureBuilt();
  const plan = validatePlan({
    name: "lab-fleet",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    repetitions: 2,
    environments: [1, 3],
    probes: [{ kind: "iperf3", timeSeconds: 8, parallel: 1 }],
  });
  const result = await withBenchLock(() =>
    runPlan({
      start: { plan, parentDir, source: { preset: null, configPath: null, regions: null } },
      openPlatform: async (target, context) =>
        LocalPlatform.open({
          profile: target.platform === "local" ? target.profile : "",
          labName: privateLabName(),
          environments: context.environments ?? 1,
        }),
    }),
  );
  assert.equal(result.remaining, 0);
  const { records } = await readRecords(result.dir);
  const failed = records.filter((r) => !r.ok);
  assert.deepEqual(
    failed.map((r) => r.error),
    [],
  );
  const environmentIds = new Set(records.filter((r) => r.environments === 3).map((r) => r.environmentId));
  assert.equal(environmentIds.size, 3, "each member of a group ran in its own environment");
  const points = analyzeFleets(records, sustainedRate);
  const alone = points.find((p) => p.environments === 1);
  const three = points.find((p) => p.environments === 3);
  assert.ok(alone?.perEnvironment && three?.perEnvironment && three.aggregate, JSON.stringify(points));
  const perEnvironmentRatio = three.perEnvironment.median / alone.perEnvironment.median;
  console.error(
    `alone ${(alone.perEnvironment.median / 1e6).toFixed(0)} Mbit/s; 3 at once: ${(three.perEnvironment.median / 1e6).toFixed(0)} each, aggregate ${(three.aggregate.median / 1e6).toFixed(0)} (scaling ${three.scaling?.toFixed(3)}, shared window ${((three.overlapShare ?? 0) * 100).toFixed(0)}%)`,
  );
  assert.ok(
    Math.abs(perEnvironmentRatio - 1) <= 0.12,
    `per environment ${perEnvironmentRatio.toFixed(3)}x alone`,
  );
  assert.ok(
    three.scaling !== null && three.scaling > 0.85 && three.scaling < 1.15,
    `aggregate ${three.scaling}x (3 x alone)`,
  );
  assert.equal(three.groups, 2);
  assert.equal(three.distinctEnvironments, 3);
});

test("a host link caps the aggregate: 3 environments at once share hostMegabitsPerSecond", {
  skip,
  timeout: 900_000,
}, async () => {
  ensureBuilt();
  const hostMbps = 900;
  const plan = validatePlan({
    name: "lab-fleet-host",
    profiles: [
      {
        name: "shared-host-900",
        description: "default-625 without a burst, behind a 900 Mbit/s host link",
        download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
        upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
        hostMegabitsPerSecond: hostMbps,
      },
    ],
    targets: [{ platform: "local", profile: "shared-host-900" }],
    memoryMb: [1024],
    repetitions: 2,
    environments: [1, 3],
    probes: [{ kind: "iperf3", timeSeconds: 6, parallel: 1 }],
  });
  const result = await withBenchLock(() =>
    runPlan({
      start: { plan, parentDir, source: { preset: null, configPath: null, regions: null } },
      openPlatform: async (target, context) =>
        LocalPlatform.open({
          profile: target.platform === "local" ? target.profile : "",
          customProfiles: context.profiles ?? [],
          labName: privateLabName(),
          environments: context.environments ?? 1,
        }),
    }),
  );
  const { records } = await readRecords(result.dir);
  assert.deepEqual(
    records.filter((r) => !r.ok).map((r) => r.error),
    [],
  );
  const points = analyzeFleets(records, sustainedRate);
  const alone = points.find((p) => p.environments === 1);
  const three = points.find((p) => p.environments === 3);
  assert.ok(alone?.perEnvironment && three?.aggregate, JSON.stringify(points));
  const aggregateMbps = three.aggregate.median / 1e6;
  console.error(
    `host link ${hostMbps}: alone ${(alone.perEnvironment.median / 1e6).toFixed(0)} Mbit/s, 3 at once aggregate ${aggregateMbps.toFixed(0)}`,
  );
  // one alone is below the host link; three would be 1,875 without it. tbf counts frames, so
  // TCP payload sits a few percent under the link's figure
  assert.ok(alone.perEnvironment.median / 1e6 > 550, "one environment alone is not held by the host link");
  assert.ok(aggregateMbps > hostMbps * 0.85 && aggregateMbps < hostMbps * 1.03, `aggregate ${aggregateMbps}`);
});
