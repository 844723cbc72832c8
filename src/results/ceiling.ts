import type { Cell } from "../plan/cell.js";
import {
  interpolateMegabitsPerSecond,
  type LabProfile,
  labProfileSchema,
  WIRE_BYTES_PER_PAYLOAD_BYTE,
  wireFactor,
} from "../plan/lab-profile.js";
import { isEmulated, targetKey } from "../plan/platforms.js";
import type { TransferDirection } from "../probes/probe-descriptor.js";
import { plannedProbe } from "../probes/registry.js";
import type { RunManifest } from "./manifest.js";
import type { PlatformFacts } from "./platform-facts.js";
import type { ResultRecord } from "./result-record.js";

/**
 * The rate limit in force for one cell, in payload bit/s: the lab profile's curve at the cell's
 * memory size and direction (summed over both directions of a bidirectional transfer), or on AWS
 * the account's quota read for the region. Pure. Every "% of quota", every bottleneck and every
 * check that a sustained rate is not a burst divides by this one figure.
 */
export interface Ceiling {
  bitsPerSecond: number;
  /** Where the figure comes from, in words. */
  basis: string;
}

/**
 * A sustained rate above the ceiling by more than this share is burst, not sustained: the lab's
 * shaper holds payload within ~2% of its rate, and on AWS one stream reads 568-618 on a 625 quota
 * (seed study), so 5% is beyond what either link's noise gives a rate measured over >= 1 s.
 */
export const ceilingNoiseShare = 0.05;

/** The lab profile recorded in the facts; null on AWS or an unshaped lab (nothing shaped it). */
export function labProfileOf(facts: PlatformFacts | undefined): LabProfile | null {
  if (!facts || !isEmulated(facts.platform) || facts.unshaped) return null;
  const parsed = labProfileSchema.safeParse(facts.details.profile);
  return parsed.success ? parsed.data : null;
}

/** Payload bit/s a wire or payload rate of the profile gives a TCP transfer. */
function payloadBitsPerSecond(profile: LabProfile, megabitsPerSecond: number): number {
  return (megabitsPerSecond * 1e6 * wireFactor(profile)) / WIRE_BYTES_PER_PAYLOAD_BYTE;
}

/** The ceiling in force for the cell; null when none is known (no quota read, a VPC cell, an unshaped lab). */
export function ceilingInForce(cell: Cell, facts: PlatformFacts | undefined): Ceiling | null {
  return ceilingOfDirections(cell, facts, plannedProbe(cell.probe).directions(cell.probe));
}

/**
 * The ceiling of the given directions for the cell: ceilingInForce's figure for a cell whose
 * probe is not read against the quota (a bucket cell's one direction, checked for a transfer
 * that never left its burst).
 */
export function ceilingOfDirections(
  cell: Cell,
  facts: PlatformFacts | undefined,
  directions: readonly TransferDirection[],
): Ceiling | null {
  if (directions.length === 0) return null;
  const profile = labProfileOf(facts);
  if (profile) {
    const curve = directions.map((direction) =>
      interpolateMegabitsPerSecond(profile[direction], cell.memoryMb),
    );
    const bitsPerSecond = curve.reduce((sum, value) => sum + payloadBitsPerSecond(profile, value), 0);
    const wire = profile.payload ? "payload" : "on the wire, payload 4.4% less";
    return {
      bitsPerSecond,
      basis: `lab profile ${profile.name}: its ${directions.join(" + ")} curve at ${cell.memoryMb.toLocaleString("en-US")} MB, ${curve.map((value) => Math.round(value).toLocaleString("en-US")).join(" + ")} Mbit/s ${wire}`,
    };
  }
  // the bandwidth quota covers functions outside a VPC only
  const quota = facts?.quotaBitsPerSecond ?? null;
  if (!facts || facts.unshaped || quota === null || cell.vpc) return null;
  // the quota is per direction: a bidirectional transfer may move it each way
  // a lab run whose facts carry no profile (written without one) still recorded its quota
  const whose = isEmulated(facts.platform)
    ? `the lab's quota for ${facts.target}`
    : `the account's quota in ${facts.target}`;
  return {
    bitsPerSecond: quota * directions.length,
    basis: `${whose}${directions.length > 1 ? ", each direction" : ""}`,
  };
}

/**
 * The ceiling of a bucket record's direction, payload bit/s; null for other records, or when the
 * facts know none. The bucket probe's rates are the fit's, not read against the quota, but a
 * long transfer still above this after the fit's break never left its burst (bucket-cells.ts).
 */
export function bucketCeilingOfRecord(manifest: RunManifest, record: ResultRecord): number | null {
  const cell = manifest.cells.find((c) => c.id === record.cellId);
  if (cell?.probe.kind !== "bucket") return null;
  return (
    ceilingOfDirections(cell, manifest.platforms[targetKey(cell.target)], [cell.probe.direction])
      ?.bitsPerSecond ?? null
  );
}

/** The ceiling for a record of the run, payload bit/s; null when its cell or target's facts say none. */
export function ceilingOfRecord(manifest: RunManifest, record: ResultRecord): number | null {
  const cell = manifest.cells.find((c) => c.id === record.cellId);
  if (!cell) return null;
  return ceilingInForce(cell, manifest.platforms[targetKey(cell.target)])?.bitsPerSecond ?? null;
}
