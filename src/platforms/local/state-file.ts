import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The lab's state file: what `lab up` started (PIDs with their start times, so `down` kills
 * exactly those and never a recycled PID), where its servers listen, and its CA.
 */

export interface LabProcess {
  role: string;
  pid: number;
  /** Start time in clock ticks since boot (/proc/PID/stat field 22). */
  startTicks: number;
}

export interface LabState {
  labName: string;
  profile: string;
  /** "shaped": namespaces, tc and cgroups; "unshaped": everything on loopback, unlimited. */
  mode: "shaped" | "unshaped";
  /** Why the lab is unshaped, when it is. */
  unshapedReason: string | null;
  createdAt: string;
  dir: string;
  cloudNamespace: string | null;
  /**
   * The shared host link between the environments and the cloud (profiles with
   * hostMegabitsPerSecond): environments link to this namespace, which forwards to the cloud
   * over one shaped veth. Absent or null: environments link straight to the cloud.
   */
  hostLink?: { namespace: string; megabitsPerSecond: number } | null;
  environmentCount: number;
  iperf3: { host: string; ports: number[]; server: string };
  s3: {
    endpoint: string;
    region: string;
    bucket: string;
    caFile: string;
    storeDir: string;
    nginxConfigFile: string;
    s3ConnectionBytesPerSecond: number | null;
  };
  processes: LabProcess[];
  /** The process using the lab's environments now (one platform at a time per lab): lab-holder.ts. */
  user: { pid: number; startTicks: number; command?: string } | null;
  hostCores: number;
}

/** Root labs keep state under /run; unprivileged (unshaped) ones under the temp directory. */
export function labDirectory(labName: string): string {
  const uid = process.getuid?.() ?? -1;
  return uid === 0 ? join("/run", labName) : join(tmpdir(), `${labName}-uid${uid}`);
}

export function stateFilePath(labName: string): string {
  return join(labDirectory(labName), "state.json");
}

export async function readLabState(labName: string): Promise<LabState | null> {
  const path = stateFilePath(labName);
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(await readFile(path, "utf8")) as LabState;
  } catch {
    return null;
  }
}

/** Written atomically (temp file + rename): a crash never leaves half a state file. */
export async function writeLabState(state: LabState): Promise<void> {
  await mkdir(state.dir, { recursive: true, mode: 0o755 });
  const path = stateFilePath(state.labName);
  await writeFile(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

export async function removeLabDirectory(labName: string): Promise<void> {
  await rm(labDirectory(labName), { recursive: true, force: true });
}

/** Start time of a process, or null when it does not exist. */
export async function processStartTicks(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may contain spaces: count fields after its closing paren
    const afterName = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(afterName[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** True when the PID still belongs to the process recorded (not a recycled PID). */
export async function isSameProcess(recorded: { pid: number; startTicks: number }): Promise<boolean> {
  return (await processStartTicks(recorded.pid)) === recorded.startTicks;
}
