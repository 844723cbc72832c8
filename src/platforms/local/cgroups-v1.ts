import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  CFS_PERIOD_US,
  type CgroupDriver,
  type EnvironmentCgroup,
  listDirectories,
  quotaMicroseconds,
} from "./cgroups.js";

/** 10x the default weight (1024): the lab's groups win the CPU race against the rest of the host. */
const LAB_CPU_SHARES = 10_240;

/**
 * cgroup v1: one hierarchy per controller (`<root>/cpu`, `<root>/memory`). The environment
 * joins `cpu/<lab>/e<N>` and `memory/<lab>/e<N>`; the servers `cpu/<lab>/cloud` (no memory
 * limit). `<root>` is /sys/fs/cgroup; tests pass a temporary directory.
 */
export class CgroupV1 implements CgroupDriver {
  readonly version = 1 as const;
  readonly cpuMechanism = "cgroup v1 cpu.cfs_quota_us";
  readonly memoryMechanism = "cgroup v1 memory.limit_in_bytes (and memsw)";

  constructor(private readonly root: string) {}

  private cpuDir(labName: string, name?: string): string {
    return join(this.root, "cpu", labName, ...(name ? [name] : []));
  }

  private memoryDir(labName: string, name?: string): string {
    return join(this.root, "memory", labName, ...(name ? [name] : []));
  }

  environmentCgroup(labName: string, name: string): EnvironmentCgroup {
    return { dirs: [this.cpuDir(labName, name), this.memoryDir(labName, name)] };
  }

  async createCgroup(labName: string, cgroup: EnvironmentCgroup): Promise<void> {
    for (const dir of cgroup.dirs) await mkdir(dir, { recursive: true });
    // the lab's weight (all its groups together) against the host's other processes
    await writeFile(join(this.cpuDir(labName), "cpu.shares"), `${LAB_CPU_SHARES}`);
  }

  async configureCgroup(
    cgroup: EnvironmentCgroup,
    cpuCores: number,
    memoryLimitBytes: number,
    cpuPeriodMicroseconds: number = CFS_PERIOD_US,
  ): Promise<void> {
    const [cpuDir, memoryDir] = cgroup.dirs as [string, string];
    await writeFile(join(cpuDir, "cpu.cfs_period_us"), `${cpuPeriodMicroseconds}`);
    await writeFile(
      join(cpuDir, "cpu.cfs_quota_us"),
      `${quotaMicroseconds(cpuCores, cpuPeriodMicroseconds)}`,
    );
    // memory.memsw (memory + swap) must stay >= memory.limit: raise it first, lower it last
    const memory = join(memoryDir, "memory.limit_in_bytes");
    const memsw = join(memoryDir, "memory.memsw.limit_in_bytes");
    const hasMemsw = existsSync(memsw);
    const current = Number((await readFile(memory, "utf8").catch(() => "0")).trim());
    if (hasMemsw && memoryLimitBytes > current) await writeFile(memsw, `${memoryLimitBytes}`);
    await writeFile(memory, `${memoryLimitBytes}`);
    if (hasMemsw && memoryLimitBytes <= current) await writeFile(memsw, `${memoryLimitBytes}`);
  }

  async oomKillCount(cgroup: EnvironmentCgroup): Promise<number> {
    const memoryDir = cgroup.dirs[1] as string;
    const text = await readFile(join(memoryDir, "memory.oom_control"), "utf8").catch(() => "");
    const match = text.match(/^oom_kill\s+(\d+)$/m);
    if (match?.[1]) return Number(match[1]);
    // older kernels have no oom_kill counter: fall back to the limit's hit count
    const failcnt = await readFile(join(memoryDir, "memory.failcnt"), "utf8").catch(() => "0");
    return Number(failcnt.trim()) || 0;
  }

  async cpuQuotaCores(cgroup: EnvironmentCgroup): Promise<number | null> {
    const cpuDir = cgroup.dirs[0] as string;
    const quota = Number((await readFile(join(cpuDir, "cpu.cfs_quota_us"), "utf8")).trim());
    const period = Number((await readFile(join(cpuDir, "cpu.cfs_period_us"), "utf8")).trim());
    return quota > 0 && period > 0 ? quota / period : null;
  }

  async cloudCgroup(labName: string): Promise<EnvironmentCgroup> {
    const dir = this.cpuDir(labName, "cloud");
    await mkdir(dir, { recursive: true });
    await writeFile(join(this.cpuDir(labName), "cpu.shares"), `${LAB_CPU_SHARES}`);
    return { dirs: [dir] };
  }

  labDirs(labName: string): string[] {
    return [this.cpuDir(labName), this.memoryDir(labName)];
  }

  async listLabs(prefix: string): Promise<string[]> {
    const names = new Set<string>();
    for (const controller of ["cpu", "memory"])
      for (const name of await listDirectories(join(this.root, controller), prefix)) names.add(name);
    return [...names];
  }
}
