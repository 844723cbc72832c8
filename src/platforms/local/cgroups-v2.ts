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

/** 10x the default weight (100) for the lab against the host's other groups. */
const LAB_CPU_WEIGHT = 1000;
/** Every environment and the servers weigh the same inside the lab. */
const MEMBER_CPU_WEIGHT = 100;
const CONTROLLERS = ["cpu", "memory"];

/**
 * cgroup v2: one unified hierarchy. `<root>/<lab>` gets `+cpu +memory` in its parent's
 * subtree_control and its own; processes live only in its leaves (`e<N>`, `cloud`), never in
 * `<lab>` itself: v2's no-internal-processes rule forbids a group with processes to hand
 * controllers to its children. The root is exempt from that rule; a delegated (non-root)
 * cgroup namespace root with processes of its own is not, and is refused with the reason.
 */
export class CgroupV2 implements CgroupDriver {
  readonly version = 2 as const;
  readonly cpuMechanism = "cgroup v2 cpu.max";
  readonly memoryMechanism = "cgroup v2 memory.max, memory.swap.max 0";

  constructor(private readonly root: string) {}

  private labDir(labName: string): string {
    return join(this.root, labName);
  }

  environmentCgroup(labName: string, name: string): EnvironmentCgroup {
    return { dirs: [join(this.labDir(labName), name)] };
  }

  /** Enables cpu and memory for the children of `dir` (appending to what is enabled). */
  private async delegate(dir: string): Promise<void> {
    const file = join(dir, "cgroup.subtree_control");
    const enabled = (await readFile(file, "utf8").catch(() => "")).trim().split(/\s+/);
    const wanted = CONTROLLERS.filter((controller) => !enabled.includes(controller));
    if (wanted.length === 0) return;
    try {
      await writeFile(file, wanted.map((controller) => `+${controller}`).join(" "));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === "EBUSY"
          ? `${dir} has processes of its own, and cgroup v2 gives controllers only to the children of a group without processes (the no-internal-processes rule); run the lab where the cgroup root is writable (a VM or a host, not a container's delegated cgroup)`
          : `${(error as Error).message}`;
      throw new Error(`lab: cannot enable ${wanted.join(" and ")} for the children of ${dir}: ${why}`);
    }
  }

  private async ensureLab(labName: string): Promise<void> {
    const labDir = this.labDir(labName);
    await this.delegate(this.root);
    await mkdir(labDir, { recursive: true });
    await writeFile(join(labDir, "cpu.weight"), `${LAB_CPU_WEIGHT}`);
    await this.delegate(labDir);
  }

  async createCgroup(labName: string, cgroup: EnvironmentCgroup): Promise<void> {
    await this.ensureLab(labName);
    const dir = cgroup.dirs[0] as string;
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "cpu.weight"), `${MEMBER_CPU_WEIGHT}`);
  }

  async configureCgroup(
    cgroup: EnvironmentCgroup,
    cpuCores: number,
    memoryLimitBytes: number,
    cpuPeriodMicroseconds: number = CFS_PERIOD_US,
  ): Promise<void> {
    const dir = cgroup.dirs[0] as string;
    await writeFile(
      join(dir, "cpu.max"),
      `${quotaMicroseconds(cpuCores, cpuPeriodMicroseconds)} ${cpuPeriodMicroseconds}`,
    );
    await writeFile(join(dir, "memory.max"), `${memoryLimitBytes}`);
    // Lambda has no swap. The file exists only with swap accounting (CONFIG_MEMCG_SWAP);
    // without it there is nothing to limit.
    const swap = join(dir, "memory.swap.max");
    await writeFile(swap, "0").catch((error: unknown) => {
      if (existsSync(swap)) throw error;
    });
  }

  async oomKillCount(cgroup: EnvironmentCgroup): Promise<number> {
    const text = await readFile(join(cgroup.dirs[0] as string, "memory.events"), "utf8").catch(() => "");
    return Number(text.match(/^oom_kill\s+(\d+)$/m)?.[1] ?? 0);
  }

  async cpuQuotaCores(cgroup: EnvironmentCgroup): Promise<number | null> {
    const text = await readFile(join(cgroup.dirs[0] as string, "cpu.max"), "utf8");
    const [quota, period] = text.trim().split(/\s+/);
    return quota === "max" ? null : Number(quota) / Number(period);
  }

  async cloudCgroup(labName: string): Promise<EnvironmentCgroup> {
    const cgroup = this.environmentCgroup(labName, "cloud");
    await this.createCgroup(labName, cgroup);
    return cgroup;
  }

  labDirs(labName: string): string[] {
    return [this.labDir(labName)];
  }

  listLabs(prefix: string): Promise<string[]> {
    return listDirectories(this.root, prefix);
  }
}
