import type { EnvironmentShape } from "./profiles.js";

/** Share of the machine's memory a fleet may take: the servers, Node and the kernel need the rest. */
export const FLEET_MEMORY_SHARE = 0.75;

/**
 * Why `environments` lab environments of this shape cannot run at once on this machine, or
 * null. Each environment is promised its CPU share and its memory; a fleet whose shares exceed
 * the machine would measure the host's contention, not the emulated link. Pure.
 */
export function labFleetProblem(
  shape: EnvironmentShape,
  environments: number,
  host: { cores: number; memoryBytes: number; environmentSlots: number },
): string | null {
  if (environments > host.environmentSlots) {
    return `environments: ${environments} at once, but the lab has ${host.environmentSlots} environments (start it with more: lab up --environments ${environments})`;
  }
  const cores = environments * shape.cpuCores;
  if (cores > host.cores + 1e-9) {
    return `environments: ${environments} at ${shape.memoryMb} MB need ${cores.toFixed(2)} cores of CPU share (${shape.cpuCores.toFixed(2)} each), this machine has ${host.cores}`;
  }
  const bytes = environments * shape.memoryLimitBytes;
  const allowed = host.memoryBytes * FLEET_MEMORY_SHARE;
  if (bytes > allowed) {
    return `environments: ${environments} at ${shape.memoryMb} MB need ${gib(bytes)} GiB of memory, this machine can give a fleet ${gib(allowed)} GiB (${FLEET_MEMORY_SHARE * 100}% of ${gib(host.memoryBytes)})`;
  }
  return null;
}

function gib(bytes: number): string {
  return (bytes / 2 ** 30).toFixed(1);
}
