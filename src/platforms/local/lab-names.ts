/**
 * Every name the lab creates at run time (network namespaces, veths, cgroups, state
 * directories) starts with `lnblab`, so cleanup can find a crashed run's leftovers and never
 * touches anything else. A lab is `lnblab` (the one `lab up` starts) or `lnblabp<PID>` (a
 * private lab owned by one process, e.g. a test; its leftovers are removed once PID is gone).
 */
export const LAB_PREFIX = "lnblab";
export const DEFAULT_LAB_NAME = LAB_PREFIX;

const labNamePattern = /^lnblab(?:p([0-9]+))?$/;
const namespacePattern = /^(lnblab(?:p[0-9]+)?)-(cloud|host|e[0-9]+)$/;

export function privateLabName(pid: number = process.pid): string {
  return `${LAB_PREFIX}p${pid}`;
}

export function checkLabName(name: string): void {
  if (!labNamePattern.test(name)) {
    throw new Error(`lab name "${name}" is not allowed (allowed: "${LAB_PREFIX}" or "${LAB_PREFIX}p<PID>")`);
  }
}

/** The owner PID of a private lab, or null for the shared one. */
export function labOwnerPid(labName: string): number | null {
  const pid = labName.match(labNamePattern)?.[1];
  return pid === undefined ? null : Number(pid);
}

export function cloudNamespace(labName: string): string {
  return `${labName}-cloud`;
}

/** The shared host link's namespace (only in a lab whose profile has hostMegabitsPerSecond). */
export function hostNamespace(labName: string): string {
  return `${labName}-host`;
}

/** The host link: the cloud's end and the host namespace's end (a /30 in the benchmarking range). */
export const HOST_LINK = {
  cloud: { device: `${LAB_PREFIX}hc`, address: "198.18.1.1" },
  host: { device: `${LAB_PREFIX}hh`, address: "198.18.1.2" },
  /** Every environment link lives in this range (see environmentLinkAddresses). */
  environmentsCidr: "198.19.0.0/16",
} as const;

export function environmentNamespace(labName: string, index: number): string {
  return `${labName}-e${index}`;
}

/** The lab a namespace belongs to, or null when the name is not one the lab creates. */
export function labOfNamespace(namespace: string): string | null {
  return namespace.match(namespacePattern)?.[1] ?? null;
}

/** Veth ends live only inside the lab's namespaces, so these short names never collide. */
export function cloudVethName(index: number): string {
  return `${LAB_PREFIX}e${index}`;
}
export const ENVIRONMENT_VETH_NAME = `${LAB_PREFIX}0`;

/** The servers' address (on the cloud namespace's loopback) and one /30 per environment. */
export const CLOUD_SERVICE_ADDRESS = "198.18.0.1";

export function environmentLinkAddresses(index: number): { cloud: string; environment: string } {
  if (!Number.isInteger(index) || index < 0 || index > 16_383)
    throw new Error(`environment index ${index} out of range`);
  // environment links use 198.19.0.0/16 (one /30 each); the service address is in 198.18.0.0/16
  const base = index * 4;
  const address = (offset: number) => `198.19.${((base + offset) >> 8) & 0xff}.${(base + offset) & 0xff}`;
  return { cloud: address(1), environment: address(2) };
}

/** Is a process alive? (signal 0 checks without touching it) */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
