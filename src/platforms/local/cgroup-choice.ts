import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CGROUP_ROOT, type CgroupDriver } from "./cgroups.js";
import { CgroupV1 } from "./cgroups-v1.js";
import { CgroupV2 } from "./cgroups-v2.js";

/** Where cgroup2 is mounted (/proc/self/mounts), or null. Hybrid hosts mount it at .../unified. */
export function cgroup2Mount(mountsText: string): string | null {
  for (const line of mountsText.split("\n")) {
    const [, mountPoint, type] = line.split(" ");
    if (type === "cgroup2" && mountPoint) return mountPoint.replace(/\\040/g, " ");
  }
  return null;
}

export type CgroupChoice = { driver: CgroupDriver; problem: null } | { driver: null; problem: string };

/**
 * Which cgroup version this host gives the lab: v2 when its root's cgroup.controllers lists
 * cpu and memory, else v1 when it has cpu and memory hierarchies, else a message naming
 * the missing controller. Pure (paths and the mounts text are arguments) for tests.
 */
export function chooseCgroups(root: string, mountsText: string): CgroupChoice {
  const v2Root = cgroup2Mount(mountsText);
  let v2Controllers: string[] = [];
  if (v2Root !== null) {
    try {
      v2Controllers = readFileSync(join(v2Root, "cgroup.controllers"), "utf8").trim().split(/\s+/);
    } catch {
      v2Controllers = [];
    }
    if (v2Controllers.includes("cpu") && v2Controllers.includes("memory"))
      return { driver: new CgroupV2(v2Root), problem: null };
  }
  const v1Cpu = existsSync(join(root, "cpu", "cpu.cfs_quota_us"));
  const v1Memory = existsSync(join(root, "memory", "memory.limit_in_bytes"));
  if (v1Cpu && v1Memory) return { driver: new CgroupV1(root), problem: null };
  const missing = [
    ...(v1Cpu || v2Controllers.includes("cpu") ? [] : ["cpu"]),
    ...(v1Memory || v2Controllers.includes("memory") ? [] : ["memory"]),
  ];
  const v2Text =
    v2Root === null
      ? "no cgroup2 mount"
      : `cgroup v2 at ${v2Root} offers: ${v2Controllers.join(" ") || "(none)"}`;
  return {
    driver: null,
    problem:
      missing.length > 0
        ? `no cgroup ${missing.join(" and ")} controller (${v2Text}; cgroup v1: ${v1Cpu ? "cpu" : "no cpu"}, ${v1Memory ? "memory" : "no memory"}); the kernel needs CONFIG_CGROUP_SCHED and CONFIG_MEMCG`
        : `cpu and memory are split between cgroup v1 and v2 (${v2Text}); the lab needs both in one version`,
  };
}

let hostChoice: CgroupChoice | null = null;

/** This host's choice, detected once per process. */
export function hostCgroups(): CgroupChoice {
  if (hostChoice === null) {
    let mounts = "";
    try {
      mounts = readFileSync("/proc/self/mounts", "utf8");
    } catch {
      mounts = "";
    }
    hostChoice = chooseCgroups(CGROUP_ROOT, mounts);
  }
  return hostChoice;
}

/** The host's driver; throws with the reason when there is none (checked earlier by capabilities). */
export function cgroups(): CgroupDriver {
  const choice = hostCgroups();
  if (choice.driver === null) throw new Error(`lab: ${choice.problem}`);
  return choice.driver;
}
