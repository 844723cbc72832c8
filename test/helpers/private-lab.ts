import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before } from "node:test";
import { cgroups } from "../../src/platforms/local/cgroup-choice.js";
import { removeLab } from "../../src/platforms/local/cleanup.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform, type LocalPlatformOptions } from "../../src/platforms/local/local-platform.js";
import { listNamespaces } from "../../src/platforms/local/namespaces.js";
import type { EnvironmentVariant } from "../../src/runner/platform.js";
import { ensureBuilt } from "../platforms/lab-helpers.js";

export interface PrivateLab {
  readonly labName: string;
  /** The platform on the lab, opened before the file's first test. */
  readonly platform: LocalPlatform;
}

/**
 * The set-up and teardown every lab test file shares: before the first test, build dist/ if
 * needed and open a LocalPlatform on a private lab of this process (lnblabp<PID>, so the shared
 * lab and other test processes are never touched), preparing `variants`; after the last, dispose
 * of it and remove the lab even when a test failed, then check that no namespace or cgroup of it
 * is left behind. Nothing happens when `skip` (the file's root gate) says so.
 */
export function usePrivateLab(
  skip: string | false,
  options: Omit<LocalPlatformOptions, "labName">,
  variants: EnvironmentVariant[] = [],
): PrivateLab {
  const labName = privateLabName();
  let platform: LocalPlatform | undefined;
  before(async () => {
    if (skip) return;
    ensureBuilt();
    platform = await LocalPlatform.open({ ...options, labName });
    if (variants.length > 0) await platform.prepare(variants);
  });
  after(async () => {
    if (skip) return;
    try {
      await platform?.dispose();
    } finally {
      await removeLab(labName);
    }
    const left = (await listNamespaces()).filter((name) => name.startsWith(labName));
    assert.deepEqual(left, [], "namespaces left behind");
    for (const dir of cgroups().labDirs(labName)) assert.ok(!existsSync(dir), `cgroup ${dir} left behind`);
  });
  return {
    labName,
    get platform() {
      if (!platform)
        throw new Error(`the private lab ${labName} is not open (skipped, or its set-up failed)`);
      return platform;
    },
  };
}
