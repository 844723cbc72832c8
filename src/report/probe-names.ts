import type { Cell } from "../plan/cell.js";
import { plannedProbe } from "../probes/registry.js";

/**
 * Short names of a probe for narrow places (the console summary, the verdict). The full label
 * ("s3-get 1024 MiB conc 4 chunk 16 MiB") stays in the wide table; these keep what tells two
 * rows apart. `family` groups the variants that answer one question (one verdict line each).
 */
export interface ProbeNames {
  /** "iperf3 upload", "S3 GET", "S3 GET single stream", "S3 PUT" (+ " in VPC", " x4 envs"). */
  family: string;
  /** "iperf3 up -P4", "s3-get conc 4", "s3-put conc 4" (+ the same axes). */
  short: string;
}

export function probeNames(cell: Pick<Cell, "probe" | "vpc" | "environments">): ProbeNames {
  const axes = `${cell.vpc ? " in VPC" : ""}${(cell.environments ?? 1) === 1 ? "" : ` x${cell.environments} envs`}`;
  const names = plannedProbe(cell.probe).names(cell.probe);
  return { family: `${names.family}${axes}`, short: `${names.short}${axes}` };
}

/**
 * The names of a run's probes by probe key. Two probes whose short names would be the same (two
 * object sizes at one concurrency) keep their full labels there instead, so no two rows or
 * verdict lines read alike.
 */
export function runProbeNames(
  cells: ReadonlyArray<Pick<Cell, "probe" | "probeKey" | "probeLabel" | "vpc" | "environments">>,
): Record<string, ProbeNames> {
  const byKey = new Map(cells.map((cell) => [cell.probeKey, { cell, names: probeNames(cell) }]));
  const keysOfShort = new Map<string, Set<string>>();
  for (const [key, { names }] of byKey)
    keysOfShort.set(names.short, (keysOfShort.get(names.short) ?? new Set()).add(key));
  return Object.fromEntries(
    [...byKey].map(([key, { cell, names }]) => [
      key,
      (keysOfShort.get(names.short)?.size ?? 0) > 1 ? { ...names, short: cell.probeLabel } : names,
    ]),
  );
}
