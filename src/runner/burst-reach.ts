import type { Cell } from "../plan/cell.js";
import { expandPlan } from "../plan/expand-plan.js";
import {
  builtInProfiles,
  flowCapBitsPerSecond,
  interpolateMegabitsPerSecond,
  type LabProfile,
  WIRE_BYTES_PER_PAYLOAD_BYTE,
  wireFactor,
} from "../plan/lab-profile.js";
import type { Plan } from "../plan/plan-schema.js";
import { targetName } from "../plan/platforms.js";
import type { TransferShape } from "../probes/probe-descriptor.js";
import { plannedProbe, probeNamed } from "../probes/registry.js";
import { publishedBuckets } from "../results/bucket-baseline.js";
import { minimumRecordSeconds, minimumSustainedSeconds } from "../results/burst-detection.js";
import { ceilingNoiseShare } from "../results/ceiling.js";

/**
 * Whether a cell's transfer can pass its burst and show a sustained rate, before it runs. Pure.
 *
 * A transfer runs at the rate it can reach (the burst's peak, or its connections x what one
 * connection gets, whichever is lower) while the bucket lasts; the bucket drains at that rate less
 * the sustained one. One S3 connection (~90 MB/s, 720 Mbit/s) on a 625 quota drains a 260 MB
 * bucket at only ~15 MB/s: 17 s and 1.5 GB inside the burst, flat, so a 384 MiB transfer never
 * leaves it. A sustained rate needs the burst over by half of the record (burst detection reads
 * its level from the second half) and at least 1 s after it.
 */

/** What a cell's transfer meets, payload bit/s and bytes (summed over both directions of a bidirectional one). */
export interface BurstLink {
  sustainedBitsPerSecond: number;
  peakBitsPerSecond: number;
  /** Bytes the bucket holds above the sustained rate. */
  bucketBytes: number;
  /** What one connection gets; null when nothing caps it. */
  connectionBitsPerSecond: number | null;
  /** Where the figures come from, in words. */
  basis: string;
}

export interface BurstReach {
  /** The rate the transfer runs at while the bucket lasts. */
  reachBitsPerSecond: number;
  /** How long the bucket lasts at that rate, and the bytes moved meanwhile; null when it never drains visibly. */
  burstSeconds: number | null;
  burstBytes: number | null;
  /** The transfer's own length at those rates, seconds. */
  transferSeconds: number;
  /** What a sustained rate needs: seconds, and for a sized transfer bytes. */
  neededSeconds: number;
  neededBytes: number | null;
  passes: boolean;
}

/** One S3 connection on AWS: "about 85-90 MB/s per connection" (AWS performance guidance; the lab's S3 cap). */
export const awsS3ConnectionBytesPerSecond = 90_000_000;
/** The default bandwidth quota of an AWS account, each direction (product.md). */
export const awsDefaultQuotaBitsPerSecond = 625e6;

export function burstReach(transfer: TransferShape, link: BurstLink): BurstReach {
  const sustained = link.sustainedBitsPerSecond / 8;
  const byConnections =
    link.connectionBitsPerSecond === null
      ? Number.POSITIVE_INFINITY
      : (transfer.connections * link.connectionBitsPerSecond) / 8;
  const reach = Math.min(link.peakBitsPerSecond / 8, byConnections);
  const drains = reach > sustained * (1 + ceilingNoiseShare) && link.bucketBytes > 0;
  const burstSeconds = drains ? link.bucketBytes / (reach - sustained) : 0;
  const burstBytes = reach * burstSeconds;
  const neededSeconds = Math.max(
    minimumRecordSeconds,
    burstSeconds + Math.max(burstSeconds, minimumSustainedSeconds),
  );
  const rateAfter = drains ? sustained : reach;
  const transferSeconds =
    transfer.bytes === undefined
      ? transfer.seconds
      : transfer.bytes <= burstBytes
        ? transfer.bytes / reach
        : burstSeconds + (transfer.bytes - burstBytes) / rateAfter;
  return {
    reachBitsPerSecond: reach * 8,
    burstSeconds: drains ? burstSeconds : null,
    burstBytes: drains ? burstBytes : null,
    transferSeconds,
    neededSeconds,
    neededBytes:
      transfer.bytes === undefined ? null : burstBytes + rateAfter * (neededSeconds - burstSeconds),
    passes: transferSeconds >= neededSeconds - 1e-9,
  };
}

const payload = (profile: LabProfile, megabitsPerSecond: number) =>
  (megabitsPerSecond * 1e6 * wireFactor(profile)) / WIRE_BYTES_PER_PAYLOAD_BYTE;

/** The lab link a cell meets on its profile, in payload terms; null when the profile has no burst. */
export function labBurstLink(cell: Cell, profile: LabProfile): BurstLink | null {
  const burst = profile.burst;
  if (!burst) return null;
  const directions = plannedProbe(cell.probe).directions(cell.probe);
  const perDirection = directions.flatMap((direction) => {
    const rateMegabits = interpolateMegabitsPerSecond(profile[direction], cell.memoryMb);
    if (burst.peakMegabitsPerSecond <= rateMegabits) return [];
    const bucketProfileBytes =
      burst.bytes ?? ((burst.peakMegabitsPerSecond - rateMegabits) * 1e6 * (burst.seconds ?? 0)) / 8;
    return [
      {
        sustained: payload(profile, rateMegabits),
        peak: payload(profile, burst.peakMegabitsPerSecond),
        bucket: (bucketProfileBytes * wireFactor(profile)) / WIRE_BYTES_PER_PAYLOAD_BYTE,
      },
    ];
  });
  if (perDirection.length === 0 || perDirection.length < directions.length) return null;
  const flow = flowCapBitsPerSecond(profile);
  // the lab's S3 caps each GET (nginx limit_rate) at S3's per-connection rate and the flow cap
  const s3Get = probeNamed(cell.probe.kind)?.peer === "s3" && directions.includes("download");
  const caps = [
    flow,
    s3Get && profile.s3ConnectionBytesPerSecond !== null ? profile.s3ConnectionBytesPerSecond * 8 : null,
  ];
  const present = caps.filter((cap): cap is number => cap !== null);
  return {
    sustainedBitsPerSecond: perDirection.reduce((sum, d) => sum + d.sustained, 0),
    peakBitsPerSecond: perDirection.reduce((sum, d) => sum + d.peak, 0),
    bucketBytes: perDirection.reduce((sum, d) => sum + d.bucket, 0),
    connectionBitsPerSecond: present.length === 0 ? null : Math.min(...present),
    basis: `lab profile ${profile.name}`,
  };
}

/**
 * The AWS link: the quota each direction (the default 625 Mbit/s unless a quota is given), the
 * largest bucket and the highest first-second rate published (a lower bound on the peak, so the
 * burst's length is not underestimated), and S3's ~90 MB/s per connection; iperf3 has no known
 * per-connection cap on AWS.
 */
export function awsBurstLink(
  cell: Cell,
  quotaBitsPerSecond = awsDefaultQuotaBitsPerSecond,
): BurstLink | null {
  const directions = plannedProbe(cell.probe).directions(cell.probe);
  if (directions.length === 0 || cell.vpc) return null;
  const figures = directions.map((direction) => {
    const published = publishedBuckets.figures.filter((f) => f.direction === direction);
    return {
      bucket: Math.max(0, ...published.map((f) => f.burstBytes?.high ?? 0)),
      peak: Math.max(0, ...published.map((f) => f.firstSecondMegabitsPerSecond.high)) * 1e6,
    };
  });
  if (figures.some((f) => f.bucket === 0 || f.peak <= quotaBitsPerSecond)) return null;
  const s3 = probeNamed(cell.probe.kind)?.peer === "s3";
  return {
    sustainedBitsPerSecond: quotaBitsPerSecond * directions.length,
    peakBitsPerSecond: figures.reduce((sum, f) => sum + f.peak, 0),
    bucketBytes: figures.reduce((sum, f) => sum + f.bucket, 0),
    connectionBitsPerSecond: s3 ? awsS3ConnectionBytesPerSecond * 8 : null,
    basis: `AWS: ${Math.round(quotaBitsPerSecond / 1e6)} Mbit/s quota, published burst (${publishedBuckets.name}), ${awsS3ConnectionBytesPerSecond / 1e6} MB/s per S3 connection`,
  };
}

const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e6).toLocaleString("en-US");
const megabytes = (bytes: number) =>
  bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6).toLocaleString("en-US")} MB`;
const seconds = (value: number) => `${value.toFixed(1)} s`;

/** The warning for a cell that cannot pass its burst, in words; null when it can. */
export function burstReachWarning(cell: Cell, link: BurstLink): string | null {
  const transfer = plannedProbe(cell.probe).transfer(cell.probe);
  if (!transfer) return null;
  const reach = burstReach(transfer, link);
  if (reach.passes) return null;
  const where = `${targetName(cell.target)} ${cell.memoryMb.toLocaleString("en-US")} MB ${cell.probeLabel}`;
  const connections =
    transfer.connections === 1 ? "one connection reaches" : `${transfer.connections} connections reach`;
  const needs =
    reach.neededBytes !== null
      ? `a sustained rate needs about ${megabytes(reach.neededBytes)} (${seconds(reach.neededSeconds)})`
      : `a sustained rate needs about ${seconds(reach.neededSeconds)}`;
  const more =
    reach.burstSeconds !== null && link.connectionBitsPerSecond !== null ? ", or more connections" : "";
  if (reach.burstSeconds === null || reach.burstBytes === null)
    return `${where}: ${seconds(reach.transferSeconds)} is too short for any sustained rate; ${needs} (${link.basis})`;
  const length = transfer.bytes !== undefined ? megabytes(transfer.bytes) : seconds(transfer.seconds);
  return (
    `${where}: ${connections} ${mbps(reach.reachBitsPerSecond)} Mbit/s, which drains the ${megabytes(link.bucketBytes)} ` +
    `burst above the ${mbps(link.sustainedBitsPerSecond)} sustained in ${seconds(reach.burstSeconds)} (${megabytes(reach.burstBytes)}): ` +
    `the transfer (${length}) ends inside or too soon after it; ${needs}${more} (${link.basis})`
  );
}

/** Every cell of the plan that cannot pass its burst, one warning each (lab targets on their profile, AWS at the given quotas). */
export function planBurstWarnings(
  plan: Plan,
  quotaBitsPerSecondByRegion: ReadonlyMap<string, number> = new Map(),
): string[] {
  const profiles = [...(plan.profiles ?? []), ...builtInProfiles];
  return expandPlan(plan).flatMap((cell) => {
    const target = cell.target;
    const link =
      target.platform === "local"
        ? (() => {
            const profile = profiles.find((p) => p.name === target.profile);
            return profile ? labBurstLink(cell, profile) : null;
          })()
        : awsBurstLink(cell, quotaBitsPerSecondByRegion.get(target.region));
    const warning = link ? burstReachWarning(cell, link) : null;
    return warning ? [warning] : [];
  });
}
