import { stableHash } from "../plan/cell.js";
import { probeNamed } from "../probes/registry.js";
import { type FlowCapFit, fitFlowCap } from "./flow-cap-fit.js";
import type { ResultRecord } from "./result-record.js";

/**
 * The streams sweeps of a run: the same probe on the same target, architecture, memory size,
 * VPC setting and fleet size (environments at once) at three or more stream counts (the probe's streams parameter: iperf3 `parallel`, s3-get `concurrency`), each with its per-flow
 * cap fit. Pure.
 *
 * The points are sustained rates, as the cells' rates the fitted cap is then compared with: the
 * burst belongs to the environment, not to each flow, so an average including it raises most the
 * points that spend longest in it (few streams drain the bucket slowly), and the fit read a cap
 * too high, or turned inconclusive. A repetition without a sustained rate is no point; a stream
 * count without any is left out, and one with fewer than three counts left is no sweep.
 */
export interface StreamsSweep {
  /** What the sweep's points share (see streamsPosition): a cell of the sweep has the same key. */
  key: string;
  target: string;
  arch: string;
  memoryMb: number;
  probe: string;
  /** The probe label without its stream count, e.g. "iperf3 upload -t 10s". */
  description: string;
  /** Sustained aggregate rate of each repetition at each stream count, bit/s. */
  points: Array<{ streams: number; bitsPerSecond: number[] }>;
  fit: FlowCapFit;
}

/**
 * A sweep has at least three stream counts: two (the seed preset's S3 at concurrency 1 and 10)
 * cannot tell a per-flow cap from a quota or a CPU limit, and printed a "cap" for every memory size.
 */
const MIN_STREAM_COUNTS = 3;

/** What places a record (or a cell) on a streams axis: the condition without the stream count. */
export type StreamsCondition = Pick<
  ResultRecord,
  "target" | "platform" | "arch" | "memoryMb" | "probe" | "parameters" | "environments" | "vpc"
>;

/** The sweep a condition belongs to and its stream count; null for probes without one (or `auto`). */
export function streamsPosition(
  condition: StreamsCondition,
): { key: string; streams: number; rest: Record<string, unknown> } | null {
  const name = probeNamed(condition.probe)?.plan?.streams?.parameter;
  if (!name) return null;
  const streams = condition.parameters[name];
  if (typeof streams !== "number") return null; // "auto" concurrency is not a point of the axis
  const { [name]: _streams, ...rest } = condition.parameters;
  const key = stableHash({
    t: condition.target,
    p: condition.platform,
    a: condition.arch,
    m: condition.memoryMb,
    k: condition.probe,
    // a fleet's members share the link: their per-environment rates are another sweep
    e: condition.environments ?? 1,
    v: condition.vpc ?? false,
    rest,
  });
  return { key, streams, rest };
}

/**
 * `sustainedBitsPerSecondOf`: a record's sustained rate as its cell computes it (record-rates.ts,
 * with the ceiling in force), null when it has none.
 */
export function streamsSweeps(
  records: readonly ResultRecord[],
  sustainedBitsPerSecondOf: (record: ResultRecord) => number | null,
): StreamsSweep[] {
  const groups = new Map<
    string,
    { sweep: Omit<StreamsSweep, "fit" | "points">; byStreams: Map<number, number[]> }
  >();
  for (const record of records) {
    if (record.warmup || !record.ok) continue;
    const position = streamsPosition(record);
    if (!position) continue;
    const sustained = sustainedBitsPerSecondOf(record);
    if (sustained === null || !Number.isFinite(sustained)) continue;
    const { key, streams, rest } = position;
    let group = groups.get(key);
    if (!group) {
      group = {
        sweep: {
          key,
          target: record.target,
          arch: record.arch,
          memoryMb: record.memoryMb,
          probe: record.probe,
          description: probeNamed(record.probe)?.plan?.streams?.sweepLabel(rest) ?? record.probe,
        },
        byStreams: new Map(),
      };
      groups.set(key, group);
    }
    const rates = group.byStreams.get(streams) ?? [];
    rates.push(sustained);
    group.byStreams.set(streams, rates);
  }
  const sweeps: StreamsSweep[] = [];
  for (const { sweep, byStreams } of groups.values()) {
    if (byStreams.size < MIN_STREAM_COUNTS) continue;
    const points = [...byStreams.entries()]
      .map(([streams, bitsPerSecond]) => ({ streams, bitsPerSecond }))
      .sort((a, b) => a.streams - b.streams);
    sweeps.push({ ...sweep, points, fit: fitFlowCap(points) });
  }
  return sweeps;
}
