import { flowCapWireBitsPerSecond, type LabProfile } from "../../plan/lab-profile.js";
import { AgentProcess, type FunctionCode } from "./agent-process.js";
import type { Slot } from "./environment-pool.js";
import { configureEnvironment } from "./environments.js";
import { LAB_S3_CREDENTIALS } from "./object-store.js";
import type { EnvironmentShape } from "./profiles.js";
import type { LabState } from "./state-file.js";

/**
 * Agent lifecycle in an environment, as on Lambda: the agent stays warm between invocations of
 * the same memory size; another size reshapes the environment (links, round trip, per-flow cap, CPU share,
 * memory limit) and the next invocation starts a new agent (cold); a dead agent (OOM kill,
 * timeout, crash) is replaced by a new one (cold).
 */

/** Reshapes the slot's environment for the memory size when it is shaped for another one. */
export async function shapeSlot(
  state: LabState,
  profile: LabProfile,
  slot: Slot,
  shape: EnvironmentShape,
): Promise<void> {
  if (slot.environment.shape?.memoryMb === shape.memoryMb) return;
  await slot.agent?.kill();
  slot.agent = null;
  await configureEnvironment(state, slot.environment, shape, {
    roundTripMs: profile.roundTripMs,
    lossPercent: profile.lossPercent,
    flowWireBitsPerSecond: flowCapWireBitsPerSecond(profile),
  });
}

/**
 * The slot's live agent, started (cold) when there is none or it runs other code: on Lambda
 * another function or version never shares an execution environment.
 */
export async function slotAgent(
  state: LabState,
  slot: Slot,
  memoryMb: number,
  code?: FunctionCode,
): Promise<AgentProcess> {
  if (slot.agent?.alive && JSON.stringify(slot.agent.placement.code) !== JSON.stringify(code))
    await slot.agent.kill();
  if (!slot.agent?.alive) {
    slot.agent = new AgentProcess(
      {
        namespace: slot.environment.namespace,
        cgroup: slot.environment.cgroup,
        memoryMb,
        functionName: `${state.labName}-e${slot.environment.index}`,
        ...(code ? { code } : {}),
      },
      {
        AWS_ACCESS_KEY_ID: LAB_S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LAB_S3_CREDENTIALS.secretAccessKey,
      },
    );
  }
  return slot.agent;
}
