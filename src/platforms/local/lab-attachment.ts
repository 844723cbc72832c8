import { checkShapedLab } from "./capabilities.js";
import { checkIperf3FlowCap, iperf3ServerKindOf } from "./iperf3-servers.js";
import { type LabUpOptions, labDown, labStatus, labUp, runningLab } from "./lab.js";
import { describeHolder, LabBusy, otherLiveHolder, thisProcessAsHolder } from "./lab-holder.js";
import { environmentNamespace } from "./lab-names.js";
import { LabRefusal } from "./lab-refusal.js";
import { deleteNamespace } from "./namespaces.js";
import type { ChosenProfile } from "./profiles.js";
import { type LabState, readLabState, writeLabState } from "./state-file.js";

/**
 * Lab ownership: a platform uses a running lab (from `lab up`) or brings one up for itself
 * (and takes it down at the end). One process uses a lab's environments at a time; the
 * state file records which.
 */
export interface LabAttachment {
  state: LabState;
  /** True when this process brought the lab up (and takes it down). */
  ownsLab: boolean;
}

export async function attachLab(
  labName: string,
  chosen: ChosenProfile,
  options: Omit<LabUpOptions, "labName" | "profile">,
): Promise<LabAttachment> {
  const { profile } = chosen;
  const mode = options.mode ?? "shaped";
  // refused here too (not only by `lab up`): attaching to a lab someone else brought up still
  // needs root for the environments, and netem for this profile's round trip
  if (mode === "shaped") await checkShapedLab([chosen]);
  const state = await runningLab(labName);
  // a running lab of the other mode is someone's: never replaced behind their back
  if (state && state.mode !== mode) {
    throw new LabRefusal(
      state.mode === "unshaped"
        ? `lab ${labName} is up unshaped (${state.unshapedReason}); use it with --unshaped, or take it down (lab down) to run shaped`
        : `lab ${labName} is up shaped; drop --unshaped to use it, or take it down (lab down) first`,
    );
  }
  if (state && state.mode === "shaped") {
    const running = state.hostLink?.megabitsPerSecond ?? null;
    if (running !== profile.hostMegabitsPerSecond) {
      throw new LabRefusal(
        `profile ${profile.name}: hostMegabitsPerSecond is ${profile.hostMegabitsPerSecond ?? "null (no host link)"}, but lab ${labName} is up with ${running === null ? "no host link" : `a ${running} Mbit/s host link`}; take it down (lab down) or bring it up with this profile`,
      );
    }
  }
  // a lab started with the stock iperf3 server cannot pace this profile's streams
  if (state) checkIperf3FlowCap(iperf3ServerKindOf(state.iperf3.server), chosen.flowCapBitsPerSecond);
  const holder = await thisProcessAsHolder();
  if (!state) {
    const started = await labUp({ ...options, labName, profile: profile.name, holder }, chosen);
    return { state: started, ownsLab: true };
  }
  const other = await otherLiveHolder(state);
  if (other) throw new LabBusy(labName, other, "wait for it to finish, or use another lab");
  state.user = holder;
  return { state, ownsLab: false };
}

/**
 * Why this process no longer has its lab, or null while it does: someone took it down
 * (`lab down --force`), brought it up anew, or its servers stopped. Asked after an invocation
 * failed, so that a failure the environment caused pauses the run instead of being recorded.
 */
export async function lostLabReason(attachment: LabAttachment): Promise<string | null> {
  const replaced = await replacedLabReason(attachment);
  if (replaced) return replaced;
  const { labName } = attachment.state;
  const status = await labStatus(labName);
  return status.up ? null : `lab ${labName} stopped working under this run: ${status.problems.join("; ")}`;
}

/** Why the lab on disk is no longer the one this process attached to, or null. */
async function replacedLabReason(attachment: LabAttachment): Promise<string | null> {
  const { labName, createdAt } = attachment.state;
  const current = await readLabState(labName);
  if (!current) return `lab ${labName} was taken down while this run was using it`;
  if (current.createdAt !== createdAt)
    return `lab ${labName} was brought up again by another process while this run was using it`;
  const other = await otherLiveHolder(current);
  return other ? `lab ${labName} was taken over by ${describeHolder(other)}` : null;
}

/** Environments of an earlier user that crashed: ours now, so remove them. */
export async function removeEarlierEnvironments(state: LabState): Promise<void> {
  if (state.mode !== "shaped") return;
  for (let i = 0; i < state.environmentCount; i += 1)
    await deleteNamespace(environmentNamespace(state.labName, i));
}

/**
 * Takes the lab down if this process brought it up, else marks it free again; a lab that is
 * no longer the one this process attached to (taken down, brought up anew) is left alone.
 */
export async function detachLab(attachment: LabAttachment): Promise<void> {
  if ((await replacedLabReason(attachment)) !== null) return;
  if (attachment.ownsLab) {
    await labDown(attachment.state.labName);
    return;
  }
  attachment.state.user = null;
  await writeLabState(attachment.state);
}
