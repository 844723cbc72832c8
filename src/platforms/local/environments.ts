import {
  configureCgroup,
  createCgroup,
  type EnvironmentCgroup,
  environmentCgroup,
  removeCgroupTree,
} from "./cgroups.js";
import {
  cloudVethName,
  ENVIRONMENT_VETH_NAME,
  environmentLinkAddresses,
  environmentNamespace,
} from "./lab-names.js";
import { addDefaultRoute, createNamespace, createVethPair, deleteNamespace } from "./namespaces.js";
import type { EnvironmentShape } from "./profiles.js";
import { addDelay, capFlowsWithFq, shapeEgress } from "./shaping.js";
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

export async function createEnvironment(state: LabState, index: number): Promise<LabEnvironment> {
  if (state.mode === "unshaped" || !state.cloudNamespace) {
    return { index, namespace: null, cgroup: null, shape: null };
  }
  const namespace = environmentNamespace(state.labName, index);
  const addresses = environmentLinkAddresses(index);
  const cgroup = environmentCgroup(state.labName, `e${index}`);
  await deleteNamespace(namespace); // a leftover of a crashed run with the same name
  await createNamespace(namespace);
  try {
    await createVethPair(
      { namespace, device: ENVIRONMENT_VETH_NAME, cidr: `${addresses.environment}/30` },
      { namespace: state.cloudNamespace, device: cloudVethName(index), cidr: `${addresses.cloud}/30` },
    );
    await addDefaultRoute(namespace, addresses.cloud);
    await createCgroup(cgroup);
  } catch (error) {
    await deleteNamespace(namespace);
    throw error;
  }
  return { index, namespace, cgroup, shape: null };
}

/** Shapes both directions and sets the CPU share and memory limit for a memory size. */
export async function configureEnvironment(
  state: LabState,
  environment: LabEnvironment,
  shape: EnvironmentShape,
  roundTripMs: number,
): Promise<void> {
  if (environment.namespace && environment.cgroup && state.cloudNamespace) {
    await shapeEgress(environment.namespace, ENVIRONMENT_VETH_NAME, shape.upload);
    await shapeEgress(state.cloudNamespace, cloudVethName(environment.index), shape.download);
    if (roundTripMs > 0) {
      await addDelay(environment.namespace, ENVIRONMENT_VETH_NAME, roundTripMs / 2);
      await addDelay(state.cloudNamespace, cloudVethName(environment.index), roundTripMs / 2);
    }
    await configureCgroup(environment.cgroup, shape.cpuCores, shape.memoryLimitBytes);
  }
  environment.shape = shape;
}

/**
 * The per-flow cap in the kernel, both directions, where it has sch_fq (under tbf; not where a
 * netem delay already is tbf's child). True when applied; false on kernels without fq, where the
 * lab's servers alone enforce it.
 */
export async function capEnvironmentFlows(
  state: LabState,
  environment: LabEnvironment,
  maxrateBitsPerSecond: number,
): Promise<boolean> {
  if (!environment.namespace || !state.cloudNamespace) return false;
  const upload = await capFlowsWithFq(environment.namespace, ENVIRONMENT_VETH_NAME, maxrateBitsPerSecond);
  const download = await capFlowsWithFq(
    state.cloudNamespace,
    cloudVethName(environment.index),
    maxrateBitsPerSecond,
  );
  return upload && download;
}

/** Removes the namespace (and with it both veth ends and their qdiscs) and the cgroup. */
export async function removeEnvironment(environment: LabEnvironment): Promise<void> {
  if (environment.namespace) await deleteNamespace(environment.namespace);
  if (environment.cgroup) {
    await removeCgroupTree(environment.cgroup.cpuDir);
    await removeCgroupTree(environment.cgroup.memoryDir);
  }
}
