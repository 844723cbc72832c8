import { cgroups } from "./cgroup-choice.js";
import { type EnvironmentCgroup, removeCgroupTree } from "./cgroups.js";
import {
  cloudVethName,
  ENVIRONMENT_VETH_NAME,
  environmentLinkAddresses,
  environmentNamespace,
} from "./lab-names.js";
import { addDefaultRoute, createNamespace, createVethPair, deleteNamespace } from "./namespaces.js";
import type { EnvironmentShape } from "./profiles.js";
import { capFlowsWithFq, type PathImpairment, shapeEgress } from "./shaping.js";
import type { LabState } from "./state-file.js";

/**
 * An execution environment of the lab: a network namespace linked to the cloud namespace by
 * a veth pair (tbf on each end's egress: the environment's end limits the upload, the cloud's
 * end the download) and a cgroup (CPU quota, memory limit). In the unshaped lab it is just
 * a slot: the agent runs on the host.
 */
export interface LabEnvironment {
  index: number;
  namespace: string | null;
  cgroup: EnvironmentCgroup | null;
  /** The shape in force, or null before the first configuration. */
  shape: EnvironmentShape | null;
}

/** Where an environment's link ends: the shared host namespace when the lab has one, else the cloud. */
export function peerNamespace(state: LabState): string {
  return state.hostLink?.namespace ?? (state.cloudNamespace as string);
}

export async function createEnvironment(state: LabState, index: number): Promise<LabEnvironment> {
  if (state.mode === "unshaped" || !state.cloudNamespace) {
    return { index, namespace: null, cgroup: null, shape: null };
  }
  const namespace = environmentNamespace(state.labName, index);
  const addresses = environmentLinkAddresses(index);
  const cgroup = cgroups().environmentCgroup(state.labName, `e${index}`);
  await deleteNamespace(namespace); // a leftover of a crashed run with the same name
  await createNamespace(namespace);
  try {
    await createVethPair(
      { namespace, device: ENVIRONMENT_VETH_NAME, cidr: `${addresses.environment}/30` },
      { namespace: peerNamespace(state), device: cloudVethName(index), cidr: `${addresses.cloud}/30` },
    );
    await addDefaultRoute(namespace, addresses.cloud);
    await cgroups().createCgroup(state.labName, cgroup);
  } catch (error) {
    await deleteNamespace(namespace);
    throw error;
  }
  return { index, namespace, cgroup, shape: null };
}

/** The path an environment's link emulates, beside its rates: the profile's round trip, loss and per-flow cap. */
export interface EnvironmentPath {
  roundTripMs: number;
  lossPercent: number;
  /** Per-flow cap as tc counts it (wire bits per second, sch_fq `maxrate`); null for none. */
  flowWireBitsPerSecond: number | null;
}

/**
 * Shapes both directions (with half the profile's round trip and its loss on each end, when
 * it has them) and sets the CPU share and memory limit for a memory size. A per-flow cap goes
 * under each end's tbf as sch_fq `maxrate` where the kernel has fq; where it has not, the lab's
 * servers alone enforce it (capFlowsWithFq).
 */
export async function configureEnvironment(
  state: LabState,
  environment: LabEnvironment,
  shape: EnvironmentShape,
  path: EnvironmentPath,
): Promise<void> {
  if (environment.namespace && environment.cgroup && state.cloudNamespace) {
    const impairment: PathImpairment | null =
      path.roundTripMs > 0 || path.lossPercent > 0
        ? { oneWayMs: path.roundTripMs / 2, lossPercent: path.lossPercent }
        : null;
    const ends = [
      { namespace: environment.namespace, device: ENVIRONMENT_VETH_NAME, shape: shape.upload },
      { namespace: peerNamespace(state), device: cloudVethName(environment.index), shape: shape.download },
    ];
    for (const end of ends) {
      await shapeEgress(end.namespace, end.device, end.shape, impairment);
      if (path.flowWireBitsPerSecond !== null) {
        await capFlowsWithFq(end.namespace, end.device, path.flowWireBitsPerSecond, impairment);
      }
    }
    await cgroups().configureCgroup(
      environment.cgroup,
      shape.cpuCores,
      shape.memoryLimitBytes,
      shape.cpuPeriodMicroseconds,
    );
  }
  environment.shape = shape;
}

/** Removes the namespace (and with it both veth ends and their qdiscs) and the cgroup. */
export async function removeEnvironment(environment: LabEnvironment): Promise<void> {
  if (environment.namespace) await deleteNamespace(environment.namespace);
  for (const dir of environment.cgroup?.dirs ?? []) await removeCgroupTree(dir);
}
