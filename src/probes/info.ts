import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import os from "node:os";

/**
 * What kind of execution environment this is. The environment id is created once per
 * process: on Lambda a new id means a new execution environment (a cold start).
 */
export interface EnvironmentInfo {
  environmentId: string;
  invocationNumber: number;
  cold: boolean;
  /** Lambda's configured memory, else the cgroup's limit, else the machine's memory. */
  memoryLimitMb: number;
  memoryLimitSource: "lambda" | "cgroup" | "host";
  arch: string;
  vcpus: number;
  /** CPU share from the cgroup quota (e.g. 0.58 at 1,024 MB), or null when unlimited. */
  cpuQuotaCores: number | null;
  cpuModel: string;
  kernel: string;
  nodeVersion: string;
  runtime: string;
  functionName: string | null;
  functionVersion: string | null;
  region: string | null;
}

const environmentId = randomUUID();
let invocationCount = 0;

/** Counts an invocation of this process; the first one is cold. */
export function countInvocation(): { environmentId: string; invocationNumber: number; cold: boolean } {
  invocationCount += 1;
  return { environmentId, invocationNumber: invocationCount, cold: invocationCount === 1 };
}

export async function readEnvironmentInfo(): Promise<EnvironmentInfo> {
  const invocation = { environmentId, invocationNumber: invocationCount, cold: invocationCount <= 1 };
  const [memory, cpuQuotaCores, cpuModel] = await Promise.all([
    readMemoryLimit(),
    readCpuQuotaCores(),
    readCpuModel(),
  ]);
  return {
    ...invocation,
    memoryLimitMb: memory.mb,
    memoryLimitSource: memory.source,
    arch: lambdaArchitectureName(process.arch),
    vcpus: os.availableParallelism(),
    cpuQuotaCores,
    cpuModel,
    kernel: `${os.type()} ${os.release()}`,
    nodeVersion: process.version,
    runtime: process.env.AWS_EXECUTION_ENV ?? `node ${process.version}`,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME ?? null,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION ?? null,
    region: process.env.AWS_REGION ?? null,
  };
}

/** Node says x64; Lambda (and this tool) says x86_64. */
export function lambdaArchitectureName(nodeArch: string): string {
  return nodeArch === "x64" ? "x86_64" : nodeArch;
}

async function readMemoryLimit(): Promise<{ mb: number; source: EnvironmentInfo["memoryLimitSource"] }> {
  const lambdaMb = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  if (Number.isFinite(lambdaMb) && lambdaMb > 0) return { mb: lambdaMb, source: "lambda" };
  const hostBytes = os.totalmem();
  for (const path of await cgroupFiles("memory", "memory.max", "memory.limit_in_bytes")) {
    const cgroupBytes = Number((await readText(path))?.trim());
    // cgroup v1 reports "no limit" as a huge number; anything at or above the host's memory is no limit
    if (Number.isFinite(cgroupBytes) && cgroupBytes > 0 && cgroupBytes < hostBytes) {
      return { mb: Math.round(cgroupBytes / 1_048_576), source: "cgroup" };
    }
  }
  return { mb: Math.round(hostBytes / 1_048_576), source: "host" };
}

/**
 * Candidate paths of a cgroup control file for this process: cgroup v2 (unified) first,
 * then cgroup v1 (one hierarchy per controller), each at the process's own cgroup.
 */
async function cgroupFiles(controller: string, v2File: string, v1File: string): Promise<string[]> {
  const membership = (await readText("/proc/self/cgroup")) ?? "";
  const paths: string[] = [];
  for (const line of membership.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers === undefined || path === undefined) continue;
    if (controllers === "")
      paths.push(`/sys/fs/cgroup${path}/${v2File}`, `/sys/fs/cgroup/unified${path}/${v2File}`);
    else if (controllers.split(",").includes(controller)) {
      const mount = controllers.includes(",") ? controllers : controller;
      paths.push(`/sys/fs/cgroup/${controller}${path}/${v1File}`, `/sys/fs/cgroup/${mount}${path}/${v1File}`);
    }
  }
  return paths;
}

/** cgroup v2 cpu.max is "QUOTA PERIOD" or "max PERIOD". */
export function parseCpuMax(text: string | undefined): number | null {
  const [quota, period] = (text ?? "").trim().split(/\s+/);
  const quotaUs = Number(quota);
  const periodUs = Number(period);
  if (!Number.isFinite(quotaUs) || !Number.isFinite(periodUs) || periodUs <= 0) return null;
  return quotaUs / periodUs;
}

async function readCpuQuotaCores(): Promise<number | null> {
  for (const path of await cgroupFiles("cpu", "cpu.max", "cpu.cfs_quota_us")) {
    const text = await readText(path);
    if (text === undefined) continue;
    if (path.endsWith("cpu.max")) return parseCpuMax(text);
    const quotaUs = Number(text.trim());
    const periodUs = Number(
      (await readText(path.replace(/cpu\.cfs_quota_us$/, "cpu.cfs_period_us")))?.trim(),
    );
    return quotaUs > 0 && periodUs > 0 ? quotaUs / periodUs : null;
  }
  return null;
}

/** x86 names the model; Graviton reports an ARM "CPU part" (0xd0c = Neoverse N1 = Graviton2, ...). */
async function readCpuModel(): Promise<string> {
  const cpuinfo = (await readText("/proc/cpuinfo")) ?? "";
  const modelName = cpuinfo.match(/^model name\s*:\s*(.+)$/m)?.[1];
  if (modelName) return modelName.trim();
  const part = cpuinfo.match(/^CPU part\s*:\s*(0x[0-9a-f]+)$/im)?.[1]?.toLowerCase();
  const graviton: Record<string, string> = {
    "0xd0c": "Neoverse N1 (Graviton2)",
    "0xd40": "Neoverse V1 (Graviton3)",
    "0xd4f": "Neoverse V2 (Graviton4)",
  };
  if (part) return graviton[part] ?? `ARM CPU part ${part}`;
  return os.cpus()[0]?.model ?? "unknown";
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}
