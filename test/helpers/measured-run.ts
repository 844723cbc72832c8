import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import type { Plan } from "../../src/plan/plan-schema.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import type { RunManifest } from "../../src/results/manifest.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";

/**
 * For a measuring test file: a scratch directory, made before its tests and removed after them.
 * Returns the directory's path (valid once the tests run). No bench lock: a measuring file runs
 * its profiles scaled (scaled-profile.ts) to rates a busy host carries.
 */
export function useScratch(prefix: string): () => string {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** `plan` run to its end on a private lab of this process, in a run directory under `parentDir`: its records. */
export async function runOnPrivateLab(
  plan: Plan,
  parentDir: string,
  source: RunManifest["source"] = { preset: null, configPath: null, regions: null },
): Promise<ResultRecord[]> {
  const result = await runPlan({
    start: { plan, parentDir, source },
    openPlatform: (target) =>
      LocalPlatform.open({
        profile: target.platform === "local" ? target.profile : "",
        customProfiles: plan.profiles ?? [],
        labName: privateLabName(),
      }),
  });
  assert.equal(result.remaining, 0);
  const [name] = await readdir(parentDir);
  return (await readRecords(join(parentDir, name as string))).records;
}
