import { readFile } from "node:fs/promises";
import { LabRefusal } from "./lab-refusal.js";
import { type LabState, processStartTicks, readLabState } from "./state-file.js";

/**
 * Who holds a lab: the one process using its environments (a run, a test), recorded in the
 * lab's state file with its start time (so a recycled PID is never mistaken for it) and its
 * command line (so the refusal a second process gets says who to wait for).
 */
export interface LabHolder {
  pid: number;
  startTicks: number;
  /** The holder's command line, for people (absent in state files written before it was kept). */
  command?: string;
}

/** The longest command line quoted in a refusal: enough to recognise the run. */
const COMMAND_CHARS = 200;

export async function thisProcessAsHolder(): Promise<LabHolder> {
  return {
    pid: process.pid,
    startTicks: (await processStartTicks(process.pid)) ?? 0,
    command: await commandLine(process.pid),
  };
}

async function commandLine(pid: number): Promise<string> {
  const raw = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  const command = raw.split("\0").filter(Boolean).join(" ");
  return command.length > COMMAND_CHARS ? `${command.slice(0, COMMAND_CHARS)}...` : command;
}

/** The recorded holder when it is another process that is still running; else null (free). */
export async function otherLiveHolder(state: LabState | null): Promise<LabHolder | null> {
  const holder = state?.user;
  if (!holder || holder.pid === process.pid) return null;
  return (await processStartTicks(holder.pid)) === holder.startTicks ? holder : null;
}

export function describeHolder(holder: LabHolder): string {
  return `process ${holder.pid}${holder.command ? ` (${holder.command})` : ""}`;
}

/** Another process holds the lab: `run` and `lab up` refuse, `lab down` refuses unless forced. */
export class LabBusy extends LabRefusal {
  constructor(
    readonly labName: string,
    readonly holder: LabHolder,
    advice: string,
  ) {
    super(`lab ${labName} is in use by ${describeHolder(holder)}; ${advice}`);
    this.name = "LabBusy";
  }
}

/** Refuses with LabBusy when another live process holds the lab. */
export async function refuseIfHeld(labName: string, advice: string): Promise<void> {
  const holder = await otherLiveHolder(await readLabState(labName));
  if (holder) throw new LabBusy(labName, holder, advice);
}
