import { stableHash } from "../plan/cell.js";
import type { PlatformName } from "../plan/platforms.js";
import { movesData } from "../probes/registry.js";
import { recordRates } from "./record-rates.js";
import type { ResultRecord } from "./result-record.js";
import { normalizeSamples } from "./samples.js";
import { describe, median, type Spread } from "./statistics.js";

/**
 * Fleets: N environments invoked at once. Two views, each against N (pure):
 * - per environment: each invocation's own rate (sustained in reports), median over environments
 *   and repetitions;
 * - aggregate: the bytes the whole group moved inside the window in which all of them were
 *   transferring, over that window — not a sum of averages, which would count an environment's
 *   time alone (before the others started or after they finished) as if it were shared.
 */

export interface FleetPoint {
  /** Groups the points of one chart: target, architecture, memory and the probe's parameters. */
  seriesKey: string;
  target: string;
  platform: PlatformName;
  arch: string;
  memoryMb: number;
  probe: string;
  /** The probe's label without the fleet suffix. */
  probeLabel: string;
  environments: number;
  /** Complete groups (every member recorded and successful). */
  groups: number;
  /** Groups left out: a member failed, or the members never all ran at the same time. */
  groupsLeftOut: number;
  /** Each environment's whole-transfer rate, bit/s, over environments and repetitions. */
  perEnvironment: Spread | null;
  /** The group's aggregate over the shared window, bit/s, over repetitions. */
  aggregate: Spread | null;
  /** Median aggregate / (N x the median rate of one environment alone); null without N = 1. */
  scaling: number | null;
  /** Median share of a member's transfer that fell inside the shared window (1 = all started and ended together). */
  overlapShare: number | null;
  /** Median count of distinct execution environments per group (N when each invocation got its own). */
  distinctEnvironments: number | null;
}

/** The shared window must hold at least this share of a member's transfer to count as "at once". */
export const MIN_OVERLAP_SHARE = 0.5;

/**
 * How one record is judged: its rate (the sustained rate where known) and how long its burst
 * lasted. Each environment has a burst bucket of its own; the aggregate window starts once every
 * member's burst is over, so the group's figure is sustained too.
 */
export type FleetRateOf = (record: ResultRecord) => { bitsPerSecond: number | null; burstSeconds: number };

/**
 * Reports judge fleets on the sustained rate, with the aggregate window after every member's
 * burst; `ceilingOf` gives the limit in force for a member's cell (`ceilingOfRecord`). A member
 * that ended inside its burst has no sustained part: its whole transfer counts as burst, so its
 * group has no shared window after the burst and is left out rather than averaged over the burst.
 */
export function sustainedRate(ceilingOf: (record: ResultRecord) => number | null): FleetRateOf {
  return (record) => {
    const rates = recordRates(record, ceilingOf(record));
    return {
      bitsPerSecond: rates?.sustainedBitsPerSecond ?? null,
      burstSeconds: rates?.insideBurst?.seconds ?? rates?.burst?.seconds ?? 0,
    };
  };
}

/** Without burst detection: the whole-transfer rate, no burst. */
export const effectiveRate: FleetRateOf = (record) => ({
  bitsPerSecond: record.bitsPerSecond,
  burstSeconds: 0,
});

interface Span {
  startMs: number;
  endMs: number;
  bytes: number;
}

export function analyzeFleets(
  records: readonly ResultRecord[],
  rateOf: FleetRateOf = effectiveRate,
): FleetPoint[] {
  const measured = records.filter((r) => !r.warmup && r.bitsPerSecond !== null && movesData(r.probe) && r.ok);
  const failedGroups = new Set(
    records.filter((r) => !r.warmup && !r.ok && r.groupId).map((r) => r.groupId as string),
  );
  const byPoint = new Map<string, ResultRecord[]>();
  for (const record of measured) {
    const key = `${seriesKey(record)}|${fleetSize(record)}`;
    byPoint.set(key, [...(byPoint.get(key) ?? []), record]);
  }
  const points: FleetPoint[] = [];
  for (const group of byPoint.values()) points.push(fleetPoint(group, failedGroups, rateOf));
  const aloneMedian = new Map<string, number>();
  for (const point of points)
    if (point.environments === 1 && point.perEnvironment)
      aloneMedian.set(point.seriesKey, point.perEnvironment.median);
  for (const point of points) {
    const alone = aloneMedian.get(point.seriesKey);
    point.scaling =
      alone !== undefined && alone > 0 && point.aggregate
        ? point.aggregate.median / (point.environments * alone)
        : null;
  }
  // a fleet chart needs more than one size; a plan without fleets gets no fleet section
  const withFleets = new Set(points.filter((p) => p.environments > 1).map((p) => p.seriesKey));
  return points
    .filter((p) => withFleets.has(p.seriesKey))
    .sort(
      (a, b) =>
        a.target.localeCompare(b.target) ||
        a.probeLabel.localeCompare(b.probeLabel) ||
        a.memoryMb - b.memoryMb ||
        a.environments - b.environments,
    );
}

function fleetPoint(
  records: ResultRecord[],
  failedGroups: ReadonlySet<string>,
  rateOf: FleetRateOf,
): FleetPoint {
  const first = records[0] as ResultRecord;
  const environments = fleetSize(first);
  const groups = new Map<string, ResultRecord[]>();
  for (const record of records) {
    const id =
      environments === 1 ? `${record.cellId}#${record.repetition}#${record.startedAt}` : record.groupId;
    if (!id) continue;
    groups.set(id, [...(groups.get(id) ?? []), record]);
  }
  const aggregates: number[] = [];
  const overlaps: number[] = [];
  const distinct: number[] = [];
  const perEnvironment: number[] = [];
  let leftOut = 0;
  for (const [id, members] of groups) {
    if (members.length !== environments || failedGroups.has(id)) {
      leftOut += 1;
      continue;
    }
    const shared = sharedWindow(members, rateOf);
    if (!shared || shared.overlapShare < MIN_OVERLAP_SHARE) {
      leftOut += 1;
      continue;
    }
    aggregates.push(shared.bitsPerSecond);
    overlaps.push(shared.overlapShare);
    distinct.push(new Set(members.map((m) => m.environmentId ?? `unknown-${m.environmentIndex}`)).size);
    for (const member of members) {
      const rate = rateOf(member).bitsPerSecond;
      if (rate !== null) perEnvironment.push(rate);
    }
  }
  return {
    seriesKey: seriesKey(first),
    target: first.target,
    platform: first.platform,
    arch: first.arch,
    memoryMb: first.memoryMb,
    probe: first.probe,
    probeLabel: first.probeLabel.replace(/ x\d+ envs$/, ""),
    environments,
    groups: aggregates.length,
    groupsLeftOut: leftOut,
    perEnvironment: describe(perEnvironment),
    aggregate: describe(aggregates),
    scaling: null,
    overlapShare: overlaps.length > 0 ? median(overlaps) : null,
    distinctEnvironments: distinct.length > 0 ? median(distinct) : null,
  };
}

/**
 * The window in which every member was transferring past its burst, and the bytes all of them
 * moved inside it (intervals cut by the window count pro rata). Each member's samples are placed
 * in time from the agent's end time backwards; null when a member has no timed samples or
 * nothing overlaps. `overlapShare` compares the window with a member's whole transfer.
 */
export function sharedWindow(
  members: readonly ResultRecord[],
  rateOf: FleetRateOf = effectiveRate,
): { startMs: number; endMs: number; bitsPerSecond: number; overlapShare: number } | null {
  const timelines = members.map(memberSpans);
  if (timelines.some((spans) => spans === null || spans.length === 0)) return null;
  const lines = timelines as Span[][];
  const startMs = Math.max(
    ...lines.map(
      (spans, i) => (spans[0] as Span).startMs + rateOf(members[i] as ResultRecord).burstSeconds * 1000,
    ),
  );
  const endMs = Math.min(...lines.map((spans) => (spans.at(-1) as Span).endMs));
  if (!(endMs > startMs)) return null;
  let bytes = 0;
  for (const spans of lines) for (const span of spans) bytes += bytesInside(span, startMs, endMs);
  const lengths = lines.map((spans) => (spans.at(-1) as Span).endMs - (spans[0] as Span).startMs);
  return {
    startMs,
    endMs,
    bitsPerSecond: (bytes * 8) / ((endMs - startMs) / 1000),
    overlapShare: (endMs - startMs) / median(lengths),
  };
}

function bytesInside(span: Span, startMs: number, endMs: number): number {
  const length = span.endMs - span.startMs;
  if (!(length > 0)) return span.startMs >= startMs && span.startMs <= endMs ? span.bytes : 0;
  const inside = Math.max(0, Math.min(span.endMs, endMs) - Math.max(span.startMs, startMs));
  return span.bytes * (inside / length);
}

/** A member's intervals on the wall clock, anchored at the agent's end time. */
function memberSpans(record: ResultRecord): Span[] | null {
  const endedMs = record.agentEndedAt ? Date.parse(record.agentEndedAt) : Number.NaN;
  const relative = relativeSpans(record.samples);
  if (!Number.isFinite(endedMs) || relative === null || relative.length === 0) return null;
  const lastEnd = (relative.at(-1) as Span).endMs;
  const offset = endedMs - lastEnd;
  return relative.map((s) => ({ startMs: s.startMs + offset, endMs: s.endMs + offset, bytes: s.bytes }));
}

/** Intervals in ms from the measured start, read through the one samples reader (either record shape). */
function relativeSpans(raw: unknown): Span[] | null {
  const samples = normalizeSamples(raw);
  if (!samples) return null;
  return samples.bytes.map((bytes, i) => {
    const startMs = (samples.startSeconds[i] ?? 0) * 1000;
    return { startMs, endMs: startMs + (samples.durationSeconds[i] ?? 0) * 1000, bytes };
  });
}

function fleetSize(record: ResultRecord): number {
  return record.environments ?? 1;
}

function seriesKey(record: ResultRecord): string {
  return `${record.platform}:${record.target}|${record.arch}|${record.memoryMb}|${stableHash(record.parameters)}`;
}
