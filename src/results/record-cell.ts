import type { Architecture } from "../plan/architecture.js";
import type { PlatformName } from "../plan/platforms.js";
import type { ResultRecord } from "./result-record.js";

/**
 * Which cell a group of records measured, as a per-cell summary built from records names it
 * (the bucket and latency cells): read off any one of the cell's records. Pure.
 */
export interface RecordCell {
  cellId: string;
  target: string;
  /** `platform:target`, as the manifest's platform facts are keyed. */
  targetKey: string;
  platform: PlatformName;
  memoryMb: number;
  arch: Architecture;
  probeKey: string;
  probeLabel: string;
  /** Environments at once (1 unless the cell is a fleet's). */
  environments: number;
}

export function recordCell(record: ResultRecord): RecordCell {
  return {
    cellId: record.cellId,
    target: record.target,
    targetKey: `${record.platform}:${record.target}`,
    platform: record.platform,
    memoryMb: record.memoryMb,
    arch: record.arch,
    probeKey: record.probeKey,
    probeLabel: record.probeLabel,
    environments: record.environments,
  };
}
