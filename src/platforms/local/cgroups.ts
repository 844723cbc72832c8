import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * CPU share and memory limit of an environment with cgroup v1 (this machine's hierarchy:
 * /sys/fs/cgroup/cpu and /sys/fs/cgroup/memory). Each lab has a directory named after it in
 * both controllers, one child per environment.
 */

const CGROUP_ROOT = "/sys/fs/cgroup";
const CFS_PERIOD_US = 100_000;
/** 10x the default weight (1024). */
const ENVIRONMENT_CPU_SHARES = 10_240;

export function cgroupV1Available(): boolean {
  return (
    existsSync(join(CGROUP_ROOT, "cpu", "cpu.cfs_quota_us")) &&
    existsSync(join(CGROUP_ROOT, "memory", "memory.limit_in_bytes"))
  );
}

export interface EnvironmentCgroup {
  cpuDir: string;
  memoryDir: string;
}

export function environmentCgroup(labName: string, environment: string): EnvironmentCgroup {
  return {
    cpuDir: join(CGROUP_ROOT, "cpu", labName, environment),
    memoryDir: join(CGROUP_ROOT, "memory", labName, environment),
  };
}

export async function createCgroup(cgroup: EnvironmentCgroup): Promise<void> {
  await mkdir(cgroup.cpuDir, { recursive: true });
  await mkdir(cgroup.memoryDir, { recursive: true });
}

/**
 * CPU quota in cores (cfs quota per 100 ms period) and the memory limit in bytes. The
 * environment also gets a high cpu.shares weight (set on the lab's directory): like a Lambda
 * environment, it gets its full quota even when the host is busy with other work.
 */
export async function configureCgroup(
  cgroup: EnvironmentCgroup,
  cpuCores: number,
  memoryLimitBytes: number,
): Promise<void> {
  await writeFile(join(dirname(cgroup.cpuDir), "cpu.shares"), `${ENVIRONMENT_CPU_SHARES}`);
  await writeFile(join(cgroup.cpuDir, "cpu.cfs_period_us"), `${CFS_PERIOD_US}`);
  await writeFile(
    join(cgroup.cpuDir, "cpu.cfs_quota_us"),
    `${Math.max(1000, Math.round(cpuCores * CFS_PERIOD_US))}`,
  );
  // memory.memsw (memory + swap) must stay >= memory.limit: raise it first, lower it last
  const memory = join(cgroup.memoryDir, "memory.limit_in_bytes");
  const memsw = join(cgroup.memoryDir, "memory.memsw.limit_in_bytes");
  const hasMemsw = existsSync(memsw);
  const current = Number((await readFile(memory, "utf8")).trim());
  if (hasMemsw && memoryLimitBytes > current) await writeFile(memsw, `${memoryLimitBytes}`);
  await writeFile(memory, `${memoryLimitBytes}`);
  if (hasMemsw && memoryLimitBytes <= current) await writeFile(memsw, `${memoryLimitBytes}`);
}

/** How many times the kernel's OOM killer has killed a process of this cgroup. */
export async function oomKillCount(cgroup: EnvironmentCgroup): Promise<number> {
  const text = await readFile(join(cgroup.memoryDir, "memory.oom_control"), "utf8").catch(() => "");
  const match = text.match(/^oom_kill\s+(\d+)$/m);
  if (match?.[1]) return Number(match[1]);
  // older kernels have no oom_kill counter: fall back to the limit's hit count
  const failcnt = await readFile(join(cgroup.memoryDir, "memory.failcnt"), "utf8").catch(() => "0");
  return Number(failcnt.trim()) || 0;
}

/**
 * The cloud side's CPU group: a sibling of the environments under the lab's directory, so
 * the servers (iperf3, nginx, s3rver) get the same weight as an environment instead of
 * being starved by the environments' high cpu.shares. On AWS the servers are other machines;
 * here they must at least not lose the CPU race to the client they serve. No quota.
 */
export async function cloudCpuCgroup(labName: string): Promise<string | null> {
  if (!cgroupV1Available()) return null;
  const dir = join(CGROUP_ROOT, "cpu", labName, "cloud");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dirname(dir), "cpu.shares"), `${ENVIRONMENT_CPU_SHARES}`);
  return dir;
}

/** Shell snippet that moves the shell into the cgroups, for `sh -c '...; exec CMD'`. */
export function joinCgroupScript(cgroup: EnvironmentCgroup): string {
  return `echo $$ > '${cgroup.cpuDir}/cgroup.procs' && echo $$ > '${cgroup.memoryDir}/cgroup.procs'`;
}

async function cgroupPids(dir: string): Promise<number[]> {
  const text = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
  return text
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Kills the processes left in a cgroup tree and removes it, children first. */
export async function removeCgroupTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await removeCgroupTree(join(dir, entry.name));
  }
  for (let attempt = 0; attempt < 50; attempt += 1) {
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

/** The lab's cgroup directories in both controllers. */
export function labCgroupDirs(labName: string): string[] {
  return [join(CGROUP_ROOT, "cpu", labName), join(CGROUP_ROOT, "memory", labName)];
}

/** Names of lab cgroup directories (top level of each controller) starting with the prefix. */
export async function listCgroupLabs(prefix: string): Promise<string[]> {
  const names = new Set<string>();
  for (const controller of ["cpu", "memory"]) {
    const entries = await readdir(join(CGROUP_ROOT, controller), { withFileTypes: true }).catch(() => []);
    for (const entry of entries)
      if (entry.isDirectory() && entry.name.startsWith(prefix)) names.add(entry.name);
  }
  return [...names];
}
