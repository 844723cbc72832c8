import { readdir, readFile } from "node:fs/promises";
import type { AgentEventInput } from "../../agent/event.js";
import { probeNamed } from "../../probes/registry.js";
import type { ServerCpuUse } from "../../results/invocation-outcome.js";
import type { LabState } from "./state-file.js";

/**
 * The lab's server side CPU per invocation: the cloud namespace's servers are processes on this
 * host, so their CPU time is in /proc. Measured per process (and its children: nginx's workers),
 * not per cgroup, so it works on cgroup v1 and v2 and names the one server an invocation used.
 */

/** /proc/PID/stat counts in USER_HZ, which Linux fixes at 100 for every architecture's ABI. */
const TICKS_PER_SECOND = 100;

/** Which lab processes serve an invocation, and how many cores they can use at most. */
export interface ServerProcesses {
  server: string;
  pids: number[];
  capacityCores: number;
}

/** The servers an event talks to: the iperf3 server on its port, or the S3 side (nginx and our control server). */
export function serverProcessesFor(state: LabState, event: AgentEventInput): ServerProcesses | null {
  const pidOf = (role: string) => state.processes.find((process) => process.role === role)?.pid;
  const peer = probeNamed(event.probe)?.peer;
  if (peer === "iperf3-server" && "port" in event) {
    const pid = pidOf(`iperf3-server:${event.port}`);
    // one event loop (ours) or one thread (stock 3.12) does all the work: one core at most
    return pid === undefined
      ? null
      : { server: `iperf3 server :${event.port} (${state.iperf3.server})`, pids: [pid], capacityCores: 1 };
  }
  if (peer === "s3") {
    const pids = ["nginx", "s3-control"].map(pidOf).filter((pid): pid is number => pid !== undefined);
    // nginx runs one worker per host core (worker_processes auto)
    return pids.length === 0
      ? null
      : { server: "S3 side (nginx and the lab's S3 control server)", pids, capacityCores: state.hostCores };
  }
  return null;
}

/** user + system seconds of the processes and every live descendant (0 for one that is gone). */
export async function processTreeCpuSeconds(pids: readonly number[]): Promise<number> {
  const stats = await readAllStats();
  const children = new Map<number, number[]>();
  for (const stat of stats.values()) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  let ticks = 0;
  const seen = new Set<number>();
  const queue = [...pids];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    ticks += stats.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/** Starts a measurement; the returned function gives the server's use since then. */
export async function startServerCpu(
  processes: ServerProcesses | null,
): Promise<() => Promise<ServerCpuUse | null>> {
  if (processes === null) return async () => null;
  const startMs = performance.now();
  const before = await processTreeCpuSeconds(processes.pids).catch(() => null);
  return async () => {
    const after = await processTreeCpuSeconds(processes.pids).catch(() => null);
    if (before === null || after === null) return null;
    return {
      server: processes.server,
      seconds: Math.max(0, after - before),
      wallSeconds: (performance.now() - startMs) / 1000,
      capacityCores: processes.capacityCores,
    };
  };
}

interface ProcessStat {
  pid: number;
  ppid: number;
  /** utime + stime. */
  ticks: number;
}

async function readAllStats(): Promise<Map<number, ProcessStat>> {
  const stats = new Map<number, ProcessStat>();
  const entries = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  await Promise.all(
    entries.map(async (name) => {
      const stat = parseStat(await readFile(`/proc/${name}/stat`, "utf8").catch(() => ""));
      if (stat) stats.set(stat.pid, stat);
    }),
  );
  return stats;
}

/** Fields after the command name (which may hold spaces and parentheses): state is field 3, ppid 4, utime 14, stime 15. */
export function parseStat(text: string): ProcessStat | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const pid = Number.parseInt(text, 10);
  const fields = text.slice(close + 2).split(" ");
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(pid) && Number.isFinite(ppid) && Number.isFinite(ticks)
    ? { pid, ppid, ticks }
    : null;
}
