import { readdir } from "node:fs/promises";
import { dirname } from "node:path";
import { hostCgroups } from "./cgroup-choice.js";
import { removeCgroupTree } from "./cgroups.js";
import { stopProcess } from "./detached-process.js";
import { DEFAULT_LAB_NAME, LAB_PREFIX, labOfNamespace, labOwnerPid, processAlive } from "./lab-names.js";
import { deleteNamespace, listNamespaces } from "./namespaces.js";
import { labDirectory, readLabState, removeLabDirectory } from "./state-file.js";

/**
 * Removes everything a lab created: its recorded processes (by PID, checked against their
 * start time), its namespaces (killing what still runs inside them), its cgroups and its
 * directory. Only names of that lab are touched.
 */
export async function removeLab(
  labName: string,
  options: { keepDirectory?: boolean } = {},
): Promise<string[]> {
  const removed: string[] = [];
  const state = await readLabState(labName);
  for (const recorded of state?.processes ?? []) {
    await stopProcess(recorded);
    removed.push(`process ${recorded.role} (pid ${recorded.pid})`);
  }
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    const namespaces = (await listNamespaces().catch(() => [])).filter(
      (ns) => labOfNamespace(ns) === labName,
    );
    // environments first: deleting them removes their veth pairs from the cloud namespace too
    namespaces.sort((a, b) => Number(a.endsWith("-cloud")) - Number(b.endsWith("-cloud")));
    for (const namespace of namespaces) {
      await deleteNamespace(namespace);
      removed.push(`namespace ${namespace}`);
    }
    // cgroups of either version (v2 or v1, whichever this host gives the lab)
    const cgroups = hostCgroups().driver;
    if (cgroups && (await cgroups.listLabs(labName)).includes(labName)) {
      for (const dir of cgroups.labDirs(labName)) {
        await removeCgroupTree(dir);
        removed.push(`cgroup ${dir}`);
      }
    }
  }
  if (!options.keepDirectory) await removeLabDirectory(labName);
  return removed;
}

/**
 * A crashed run's leftovers: private labs (`lnblabp<PID>`) whose owner is gone. The shared
 * lab (`lnblab`) is only ever removed by `lab down` or by the next `lab up` of it.
 */
export async function findOrphanedLabs(): Promise<string[]> {
  const labs = new Set<string>();
  if (process.getuid?.() === 0) {
    for (const namespace of await listNamespaces().catch(() => [])) {
      const lab = labOfNamespace(namespace);
      if (lab) labs.add(lab);
    }
    for (const name of (await hostCgroups().driver?.listLabs(LAB_PREFIX)) ?? []) labs.add(name);
  }
  const stateParent = dirname(labDirectory(DEFAULT_LAB_NAME));
  for (const entry of await readdir(stateParent).catch(() => [])) {
    const lab = entry.replace(/-uid[0-9]+$/, "");
    if (lab.startsWith(LAB_PREFIX) && labOwnerPid(lab) !== null) labs.add(lab);
  }
  return [...labs].filter((lab) => {
    const owner = labOwnerPid(lab);
    return owner !== null && owner !== process.pid && !processAlive(owner);
  });
}

export async function removeOrphanedLabs(): Promise<string[]> {
  const removed: string[] = [];
  for (const lab of await findOrphanedLabs()) removed.push(...(await removeLab(lab)));
  return removed;
}
