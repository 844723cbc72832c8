import { existsSync } from "node:fs";
import { readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * CPU share and memory limit of the lab's environments, behind one interface with two
 * implementations: cgroup v1 (one hierarchy per controller, like this build machine) and
 * cgroup v2 (one unified hierarchy: Debian 12, Ubuntu 22.04+, Fedora, most CI runners).
 * Each lab has a directory named after it, one child per environment (`e<N>`) and one for
 * the cloud side's servers (`cloud`), siblings with equal CPU weight. Which one this host
 * uses: cgroup-choice.ts.
 */

/** The directories an environment's processes join: v1 one per controller, v2 one. */
export interface EnvironmentCgroup {
  dirs: string[];
}

export interface CgroupDriver {
  readonly version: 1 | 2;
  /** What sets the CPU share and the memory limit, for the platform's facts. */
  readonly cpuMechanism: string;
  readonly memoryMechanism: string;
  environmentCgroup(labName: string, name: string): EnvironmentCgroup;
  /** Creates the lab's directory (enabling the controllers it needs) and the environment's. */
  createCgroup(labName: string, cgroup: EnvironmentCgroup): Promise<void>;
  /** CPU quota in cores per CFS period (default the kernel's 100 ms) and the memory limit in bytes (no swap). */
  configureCgroup(
    cgroup: EnvironmentCgroup,
    cpuCores: number,
    memoryLimitBytes: number,
    cpuPeriodMicroseconds?: number,
  ): Promise<void>;
  /** How many times the kernel's OOM killer has killed a process of this cgroup. */
  oomKillCount(cgroup: EnvironmentCgroup): Promise<number>;
  /** The CPU quota in force, in cores (null: unlimited). */
  cpuQuotaCores(cgroup: EnvironmentCgroup): Promise<number | null>;
  /** The cloud side's CPU group (servers), created if needed: no quota, an environment's weight. */
  cloudCgroup(labName: string): Promise<EnvironmentCgroup>;
  /** The lab's top directories (what `lab down` removes). */
  labDirs(labName: string): string[];
  /** Names of lab directories at the top of the hierarchy starting with the prefix. */
  listLabs(prefix: string): Promise<string[]>;
}

export const CGROUP_ROOT = "/sys/fs/cgroup";
/** The kernel's default CFS period (a profile's cpuPeriodMs sets another). */
export const CFS_PERIOD_US = 100_000;

/** The cpu quota of `cpuCores` per CFS period (at least 1 ms: the kernel's minimum). */
export function quotaMicroseconds(cpuCores: number, periodMicroseconds: number = CFS_PERIOD_US): number {
  return Math.max(1000, Math.round(cpuCores * periodMicroseconds));
}

/** Shell snippet that moves the shell into the cgroup, for `sh -c '...; exec CMD'`. */
export function joinCgroupScript(cgroup: EnvironmentCgroup): string {
  return cgroup.dirs.map((dir) => `echo $$ > '${dir}/cgroup.procs'`).join(" && ");
}

export async function cgroupPids(dir: string): Promise<number[]> {
  const text = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
  return text
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Kills the processes left in a cgroup tree and removes it, children first (v1 and v2). */
export async function removeCgroupTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await removeCgroupTree(join(dir, entry.name));
  }
  for (let attempt = 0; attempt < 50; attempt += 1) {
    // cgroup v2 (5.14+) kills the whole group at once; elsewhere kill PID by PID
    if (existsSync(join(dir, "cgroup.kill"))) await writeFile(join(dir, "cgroup.kill"), "1").catch(() => {});
    for (const pid of await cgroupPids(dir)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`lab: could not remove cgroup ${dir} (processes still inside)`);
}

/** Names of directories in `parent` starting with the prefix. */
export async function listDirectories(parent: string, prefix: string): Promise<string[]> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory() && entry.name.startsWith(prefix)).map((e) => e.name);
}
