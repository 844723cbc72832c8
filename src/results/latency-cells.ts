import type { Architecture } from "../plan/architecture.js";
import type { ModeMeasurement } from "../probes/latency/measurement.js";
import { CONNECTION_MODES, type ConnectionMode } from "../probes/latency/options.js";
import { type CpuShare, cpuBoundShare, environmentCpuShare } from "./cpu-share.js";
import { type Percentiles, percentiles } from "./latency-percentiles.js";
import { type ModeLatency, summarizeMode } from "./latency-phases.js";
import type { PlatformFacts } from "./platform-facts.js";
import { type RecordCell, recordCell } from "./record-cell.js";
import type { ResultRecord } from "./result-record.js";

/**
 * The latency cells of a run: per cell (one request size at one memory size), every measured
 * request of its repetitions pooled per connection mode, with the CPU the requests took against
 * the environment's share, and the TCP connect time to the iperf3 server. Pure.
 */
export interface LatencyCell extends RecordCell {
  /** Bytes each GET read. */
  requestBytes: number;
  /** true: ranged GETs of a larger object; false: whole objects. */
  ranged: boolean;
  /** Successful invocations pooled (repetitions). */
  repetitions: number;
  modes: Array<ModeLatency & { cpuBound: boolean | null }>;
  cpuShare: CpuShare;
  /** TCP connect to the iperf3 server, pooled; null when not measured. */
  iperf3Connect: Percentiles | null;
  /** Each of those connects, seconds (so cells of one environment size can be pooled). */
  iperf3ConnectSeconds: number[];
}

export function latencyCells(
  records: readonly ResultRecord[],
  facts: Readonly<Record<string, PlatformFacts>>,
): LatencyCell[] {
  const byCell = new Map<string, ResultRecord[]>();
  for (const record of records) {
    if (record.warmup || !record.ok || !record.latency) continue;
    byCell.set(record.cellId, [...(byCell.get(record.cellId) ?? []), record]);
  }
  return [...byCell.values()].map((group) => {
    const cell = recordCell(group[0] as ResultRecord);
    const cpuShare = environmentCpuShare(cell.memoryMb, facts[cell.targetKey]);
    const measurements = group.flatMap((r) => (r.latency ? [r.latency] : []));
    const modes = CONNECTION_MODES.flatMap((mode) => {
      const summary = summarizeMode(measurements.flatMap((m) => m.modes.filter((x) => x.mode === mode)));
      return summary ? [{ ...summary, cpuBound: isCpuBound(summary, cpuShare) }] : [];
    });
    const connects = measurements.flatMap((m) => m.iperf3Connect?.connectSeconds ?? []);
    const rangeBytes = measurements[0]?.rangeBytes ?? null;
    return {
      ...cell,
      requestBytes: rangeBytes ?? wholeObjectBytes(measurements.flatMap((m) => m.modes)),
      ranged: rangeBytes !== null,
      repetitions: group.length,
      modes,
      cpuShare,
      iperf3Connect: percentiles(connects),
      iperf3ConnectSeconds: connects,
    };
  });
}

/** CPU-bound: the requests kept the environment's share busy (the same rule as the rate cells'). */
function isCpuBound(mode: ModeLatency, share: CpuShare): boolean | null {
  if (mode.cpuCores === null || !(share.cores > 0)) return null;
  return mode.cpuCores >= cpuBoundShare * share.cores;
}

function wholeObjectBytes(modes: readonly ModeMeasurement[]): number {
  return modes.find((m) => m.requests.bodyBytes.length > 0)?.requests.bodyBytes[0] ?? 0;
}

/** Where more memory stops helping: within this share of the fastest size's p50 (or `kneeSlackSeconds`). */
export const latencyKneeShare = 1.1;
/** Below a millisecond the differences are the host's, not the memory size's. */
export const kneeSlackSeconds = 0.001;

export interface LatencyCurvePoint {
  memoryMb: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
  p99Seconds: number | null;
  maxSeconds: number;
  n: number;
  cpuBound: boolean | null;
}

/** One request size and connection mode on one target and architecture, by memory size. */
export interface LatencyCurve {
  targetKey: string;
  target: string;
  arch: Architecture;
  requestBytes: number;
  ranged: boolean;
  mode: ConnectionMode;
  points: LatencyCurvePoint[];
  /**
   * The smallest memory whose time-to-last-byte p50 is within 10% (or 1 ms) of the fastest
   * size's, and every larger size's too: more memory stops helping there. Null with one size.
   */
  kneeMemoryMb: number | null;
}

/** The curves of a run's latency cells, each sorted by memory size. */
export function latencyCurves(cells: readonly LatencyCell[]): LatencyCurve[] {
  const groups = new Map<string, LatencyCurve>();
  for (const cell of cells) {
    for (const mode of cell.modes) {
      const total = mode.phases.total;
      if (!total) continue;
      const key = `${cell.targetKey}|${cell.arch}|${cell.requestBytes}|${cell.ranged}|${mode.mode}`;
      const curve = groups.get(key) ?? {
        targetKey: cell.targetKey,
        target: cell.target,
        arch: cell.arch,
        requestBytes: cell.requestBytes,
        ranged: cell.ranged,
        mode: mode.mode,
        points: [],
        kneeMemoryMb: null,
      };
      curve.points.push({
        memoryMb: cell.memoryMb,
        p50Seconds: total.p50Seconds,
        p90Seconds: total.p90Seconds,
        p99Seconds: total.p99Seconds,
        maxSeconds: total.maxSeconds,
        n: total.n,
        cpuBound: mode.cpuBound,
      });
      groups.set(key, curve);
    }
  }
  return [...groups.values()].map((curve) => {
    const points = [...curve.points].sort((a, b) => a.memoryMb - b.memoryMb);
    return { ...curve, points, kneeMemoryMb: kneeOf(points) };
  });
}

function kneeOf(points: readonly LatencyCurvePoint[]): number | null {
  const withP50 = points.filter(
    (p): p is LatencyCurvePoint & { p50Seconds: number } => p.p50Seconds !== null,
  );
  if (withP50.length < 2) return null;
  const fastest = Math.min(...withP50.map((p) => p.p50Seconds));
  const limit = Math.max(fastest * latencyKneeShare, fastest + kneeSlackSeconds);
  // the smallest size from which every larger size is close to the fastest
  for (let i = 0; i < withP50.length; i += 1) {
    if (withP50.slice(i).every((p) => p.p50Seconds <= limit))
      return (withP50[i] as LatencyCurvePoint).memoryMb;
  }
  return null;
}
