import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { ceilingOfRecord } from "../../src/results/ceiling.js";
import { analyzeFleets, sustainedRate } from "../../src/results/fleet-analysis.js";
import { readManifest, readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { rootSkip } from "../helpers/root-gate.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { ensureBuilt } from "./lab-helpers.js";

/**
 * Fleets on the real lab: 3 environments at once on default-625 at 1/8 of its rates (78 Mbit/s
 * each after a 350 Mbit/s burst), each with its own shaped link, must each get about what one
 * gets alone, and together about 3x; behind a host link (1/5 of 900 Mbit/s over three of 1/5 of
 * 625), the host link caps the aggregate. At these rates a busy host carries all three at once.
 */
const fleetProfile = scaledProfile("default-625", 8);
const hostProfile = scaledProfile(
  {
    name: "shared-host-900",
    description: "default-625 without a burst, behind a 900 Mbit/s host link",
    download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    hostMegabitsPerSecond: 900,
  },
  5,
);
let parentDir: string;
before(async () => {
  parentDir = await mkdtemp(join(tmpdir(), "lnbr-labfleet-"));
});
after(async () => {
  await rm(parentDir, { recursive: true, force: true });
});

const skip = rootSkip("the lab fleet test");

test(`3 environments at once on ${fleetProfile.label}: each within 12% of one alone, aggregate about 3x (sustained)`, {
  skip,
  timeout: 900_000,
}, async () => {
  ensureBuilt();
  const plan = validatePlan({
    name: "lab-fleet",
    targets: [{ platform: "local", profile: fleetProfile.name }],
    profiles: [fleetProfile.profile],
    memoryMb: [1024],
    repetitions: 2,
    environments: [1, 3],
    probes: [{ kind: "iperf3", timeSeconds: 8, parallel: 1 }],
  });
  const result = await runPlan({
    start: { plan, parentDir, source: { preset: null, configPath: null, regions: null } },
    openPlatform: async (target, context) =>
      LocalPlatform.open({
        profile: target.platform === "local" ? target.profile : "",
        customProfiles: context.profiles ?? [],
        labName: privateLabName(),
        environments: context.environments ?? 1,
      }),
  });
  assert.equal(result.remaining, 0);
  const { records } = await readRecords(result.dir);
  const failed = records.filter((r) => !r.ok);
  assert.deepEqual(
    failed.map((r) => r.error),
    [],
  );
  const environmentIds = new Set(records.filter((r) => r.environments === 3).map((r) => r.environmentId));
  assert.equal(environmentIds.size, 3, "each member of a group ran in its own environment");
  const manifest = await readManifest(result.dir);
  const points = analyzeFleets(
    records,
    sustainedRate((record) => ceilingOfRecord(manifest, record)),
  );
  const alone = points.find((p) => p.environments === 1);
  const three = points.find((p) => p.environments === 3);
  assert.ok(alone?.perEnvironment && three?.perEnvironment && three.aggregate, JSON.stringify(points));
  const perEnvironmentRatio = three.perEnvironment.median / alone.perEnvironment.median;
  console.error(
    `alone ${(alone.perEnvironment.median / 1e6).toFixed(1)} Mbit/s; 3 at once: ${(three.perEnvironment.median / 1e6).toFixed(0)} each, aggregate ${(three.aggregate.median / 1e6).toFixed(0)} (scaling ${three.scaling?.toFixed(3)}, shared window ${((three.overlapShare ?? 0) * 100).toFixed(0)}%)`,
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

test(`a host link caps the aggregate: 3 environments at once share hostMegabitsPerSecond (${hostProfile.label})`, {
  skip,
  timeout: 900_000,
}, async () => {
  ensureBuilt();
  const hostMbps = hostProfile.profile.hostMegabitsPerSecond ?? 0;
  const linkMbps = hostProfile.profile.upload[0]?.megabitsPerSecond ?? 0;
  const plan = validatePlan({
    name: "lab-fleet-host",
    profiles: [hostProfile.profile],
    targets: [{ platform: "local", profile: hostProfile.name }],
    memoryMb: [1024],
    repetitions: 2,
    environments: [1, 3],
    probes: [{ kind: "iperf3", timeSeconds: 6, parallel: 1 }],
  });
  const result = await runPlan({
    start: { plan, parentDir, source: { preset: null, configPath: null, regions: null } },
    openPlatform: async (target, context) =>
      LocalPlatform.open({
        profile: target.platform === "local" ? target.profile : "",
        customProfiles: context.profiles ?? [],
        labName: privateLabName(),
        environments: context.environments ?? 1,
      }),
  });
  const { records } = await readRecords(result.dir);
  assert.deepEqual(
    records.filter((r) => !r.ok).map((r) => r.error),
    [],
  );
  const manifest = await readManifest(result.dir);
  const points = analyzeFleets(
    records,
    sustainedRate((record) => ceilingOfRecord(manifest, record)),
  );
  const alone = points.find((p) => p.environments === 1);
  const three = points.find((p) => p.environments === 3);
  assert.ok(alone?.perEnvironment && three?.aggregate, JSON.stringify(points));
  const aggregateMbps = three.aggregate.median / 1e6;
  console.error(
    `host link ${hostMbps}: alone ${(alone.perEnvironment.median / 1e6).toFixed(0)} Mbit/s, 3 at once aggregate ${aggregateMbps.toFixed(0)}`,
  );
  // one alone is below the host link; three would be 3x its link without it. tbf counts frames,
  // so TCP payload sits a few percent under the link's figure
  assert.ok(
    alone.perEnvironment.median / 1e6 > 0.88 * linkMbps,
    `one environment alone is not held by the host link (${(alone.perEnvironment.median / 1e6).toFixed(1)} of ${linkMbps})`,
  );
  assert.ok(aggregateMbps > hostMbps * 0.85 && aggregateMbps < hostMbps * 1.03, `aggregate ${aggregateMbps}`);
});
