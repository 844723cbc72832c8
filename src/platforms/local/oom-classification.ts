import type { InvocationFailureKind } from "../../results/invocation-outcome.js";
import type { AgentExit } from "./agent-process.js";
import { cgroups } from "./cgroup-choice.js";
import type { EnvironmentCgroup } from "./cgroups.js";

/**
 * Why an agent died: the kernel's OOM killer (SIGKILL while the cgroup's oom_kill count rose:
 * v1 memory.oom_control, v2 memory.events) or V8's own heap limit is `out-of-memory`, like
 * Lambda's "Runtime exited: out of memory"; any other death is a `function-error`.
 */

/** The cgroup's OOM kill count before an invocation (0 without a cgroup: the unshaped lab). */
export async function oomKillsBefore(cgroup: EnvironmentCgroup | null): Promise<number> {
  return cgroup ? cgroups().oomKillCount(cgroup) : 0;
}

export async function classifyAgentExit(
  cgroup: EnvironmentCgroup | null,
  memoryMb: number | undefined,
  exit: AgentExit,
  oomKillsBeforeInvocation: number,
): Promise<{ kind: InvocationFailureKind; message: string }> {
  const oomKilled = cgroup ? (await cgroups().oomKillCount(cgroup)) > oomKillsBeforeInvocation : false;
  if ((exit.signal === "SIGKILL" && oomKilled) || /heap out of memory/i.test(exit.stderrTail)) {
    return {
      kind: "out-of-memory",
      message: `Runtime exited: out of memory (limit ${memoryMb ?? "?"} MB)`,
    };
  }
  return { kind: "function-error", message: describeExit(exit) };
}

export function describeExit(exit: AgentExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const tail = exit.stderrTail.trim().split("\n").slice(-5).join(" | ");
  return `Runtime exited with ${how}${tail ? `: ${tail}` : ""}`;
}
