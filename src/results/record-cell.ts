import type { ResultRecord } from "./result-record.js";

/**
 * Which cell a group of records measured, as a per-cell summary built from records names it
 * (the bucket and latency cells): read off any one of the cell's records, with its target key
 * (`platform:target`, as the manifest's platform facts are keyed). Pure.
 */
export type RecordCell = Pick<
  ResultRecord,
  "cellId" | "target" | "platform" | "memoryMb" | "arch" | "probeKey" | "probeLabel" | "environments" | "vpc"
> & { targetKey: string };

export function recordCell(record: ResultRecord): RecordCell {
  const { cellId, target, platform, memoryMb, arch, probeKey, probeLabel, environments, vpc } = record;
  return {
    cellId,
    target,
    targetKey: `${platform}:${target}`,
    platform,
    memoryMb,
    arch,
    probeKey,
    probeLabel,
    environments,
    vpc,
  };
}
