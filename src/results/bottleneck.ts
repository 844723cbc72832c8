import type { Cell } from "../plan/cell.js";
import { probeParameters } from "../plan/cell.js";
import { flowCapBitsPerSecond, type LabProfile } from "../plan/lab-profile.js";
import { type PlatformName, platformNamed, targetName } from "../plan/platforms.js";
import { plannedProbe, probeNamed } from "../probes/registry.js";
import { ceilingInForce, labProfileOf } from "./ceiling.js";
import type { PlatformFacts } from "./platform-facts.js";
import type { ResultRecord } from "./result-record.js";
import { median } from "./statistics.js";
import { type StreamsSweep, streamsPosition } from "./streams-sweeps.js";

/**
 * What limited a cell, by name, with the numbers that say so. Pure. Checked in this order, the
 * first that explains the sustained rate wins:
 *
 * - quota: the sustained rate is within a few % of the limit in force (the lab profile's curve at
 *   this memory and direction, in payload terms; on AWS the account's quota);
 * - flow: below the quota, and streams x the per-flow cap explains it (the streams sweep's fit,
 *   or in the lab the profile's own cap);
 * - cpu: the client used about all of the environment's CPU share;
 * - server: the server side used about all the CPU it can (the lab records it per invocation);
 * - undetermined: none of these, and the evidence says what was checked.
 */
export type BottleneckKind = "quota" | "flow" | "cpu" | "server" | "undetermined";

export interface Bottleneck {
  kind: BottleneckKind;
  /** One sentence with the figures behind the verdict. */
  evidence: string;
}

/** The figures a verdict rests on, one cell's worth (medians over its repetitions). */
export interface BottleneckInput {
  platform: PlatformName;
  /** Median sustained rate, bit/s; null when the cell has none. */
  sustainedBitsPerSecond: number | null;
  /** Why a cell has no sustained rate (a repetition's own reason: "ended inside the burst: ..."); null otherwise. */
  sustainedMissing: string | null;
  /** The limit in force for this cell, payload bit/s, and where it comes from; null when unknown. */
  quota: { bitsPerSecond: number; basis: string } | null;
  /** Parallel TCP connections of the transfer (iperf3 -P per direction, s3 concurrency); null when unknown. */
  streams: number | null;
  /** Per-flow cap, payload bit/s, and where it comes from; null when none is known. */
  flowCap: { bitsPerSecond: number; basis: string } | null;
  /** The client's median CPU use and the environment's CPU share, cores; null when not measured. */
  cpu: { usedCores: number; shareCores: number } | null;
  /** The server side's median CPU use and the most it can use, cores; null when not recorded. */
  server: { name: string; usedCores: number; capacityCores: number } | null;
}

/** "Within a few %" of the quota: the lab's shaper holds payload within ~2% of its rate. */
export const quotaShare = 0.95;
/** Streams x cap explains the rate when they agree within this share (the flow-cap fit's own tolerance). */
export const flowTolerance = 0.15;
/** CPU-bound and server-bound at this share of the CPU available (as the cell's cpuBound flag). */
export const saturatedShare = 0.9;

const mbps = (bitsPerSecond: number) => `${Math.round(bitsPerSecond / 1e6).toLocaleString("en-US")} Mbit/s`;
const cores = (value: number) => value.toFixed(value < 0.1 ? 3 : 2);
/**
 * Whole percent, but one decimal within a point of the threshold the figure is judged by (the
 * quota's 95%, the CPU's 90%): 94.6% never reads "95%", 89.6% of the CPU never "90%".
 */
const percent = (ratio: number, threshold = quotaShare) =>
  Math.abs(ratio * 100 - threshold * 100) < 1
    ? `${(ratio * 100).toFixed(1)}%`
    : `${Math.round(ratio * 100)}%`;

export function nameBottleneck(input: BottleneckInput): Bottleneck {
  const rate = input.sustainedBitsPerSecond;
  if (rate === null || !(rate > 0))
    return {
      kind: "undetermined",
      evidence: `no sustained rate to explain: ${input.sustainedMissing ?? "no successful measurement after the burst"}`,
    };
  const quota = input.quota;
  const ofQuota = quota
    ? ` (${percent(rate / quota.bitsPerSecond)} of the ${mbps(quota.bitsPerSecond)} quota)`
    : "";
  if (quota && rate >= quotaShare * quota.bitsPerSecond) {
    return {
      kind: "quota",
      evidence: `sustained ${mbps(rate)} is ${percent(rate / quota.bitsPerSecond)} of the ${mbps(quota.bitsPerSecond)} in force (${quota.basis})`,
    };
  }
  const flow = flowExplains(input, rate);
  if (flow) return { kind: "flow", evidence: `${flow}${ofQuota}` };
  const cpu = input.cpu;
  if (cpu && cpu.shareCores > 0 && cpu.usedCores >= saturatedShare * cpu.shareCores) {
    return {
      kind: "cpu",
      evidence: `the client used ${cores(cpu.usedCores)} of its ${cores(cpu.shareCores)} cores of CPU share (${percent(cpu.usedCores / cpu.shareCores, saturatedShare)}) for a sustained ${mbps(rate)}${ofQuota}`,
    };
  }
  const server = input.server;
  if (server && server.usedCores >= saturatedShare * server.capacityCores) {
    return {
      kind: "server",
      evidence: `the ${server.name} used ${cores(server.usedCores)} of the ${cores(server.capacityCores)} cores it can use (${percent(server.usedCores / server.capacityCores, saturatedShare)}) for a sustained ${mbps(rate)}${ofQuota}`,
    };
  }
  return { kind: "undetermined", evidence: undeterminedEvidence(input, rate, ofQuota) };
}

/** The sentence when streams x cap explains the rate below the quota; null when it does not. */
function flowExplains(input: BottleneckInput, rate: number): string | null {
  const { flowCap, streams, quota } = input;
  if (!flowCap || streams === null) return null;
  const allowed = streams * flowCap.bitsPerSecond;
  if (quota && allowed >= quotaShare * quota.bitsPerSecond) return null;
  if (Math.abs(rate - allowed) > flowTolerance * allowed) return null;
  return `sustained ${mbps(rate)} matches ${streams} stream${streams === 1 ? "" : "s"} x the ${mbps(flowCap.bitsPerSecond)} per-flow cap = ${mbps(allowed)} (${flowCap.basis})`;
}

function undeterminedEvidence(input: BottleneckInput, rate: number, ofQuota: string): string {
  const parts = [`sustained ${mbps(rate)}${quota(input, ofQuota)}`];
  parts.push(
    input.cpu
      ? `client CPU ${cores(input.cpu.usedCores)} of ${cores(input.cpu.shareCores)} cores${shareOf(input.cpu.usedCores, input.cpu.shareCores)}`
      : "client CPU not measured",
  );
  parts.push(
    input.flowCap
      ? `per-flow cap ${mbps(input.flowCap.bitsPerSecond)} does not explain it`
      : "no per-flow cap known",
  );
  parts.push(
    input.server
      ? `${input.server.name} CPU ${cores(input.server.usedCores)} of ${cores(input.server.capacityCores)} cores${shareOf(input.server.usedCores, input.server.capacityCores)}`
      : platformNamed(input.platform).unrecordedServerCpu,
  );
  return parts.join("; ");
}

/** The CPU share beside cores that round to the 90% line (0.896 of 1.00 prints "0.90 of 1.00"): " (89.6%)". */
function shareOf(used: number, available: number): string {
  if (!(available > 0)) return "";
  const ratio = used / available;
  return Math.abs(ratio - saturatedShare) < 0.02 ? ` (${percent(ratio, saturatedShare)})` : "";
}

function quota(input: BottleneckInput, ofQuota: string): string {
  return input.quota ? ofQuota : " (no quota known)";
}

/** Builds a cell's input from the run's own figures: its facts, its records and the run's streams sweeps. */
export function bottleneckInput(
  cell: Cell,
  records: readonly ResultRecord[],
  facts: PlatformFacts | undefined,
  sweeps: readonly StreamsSweep[],
  figures: {
    sustainedBitsPerSecond: number | null;
    sustainedMissing: string | null;
    cpuUsedCores: number | null;
    cpuShareCores: number;
  },
): BottleneckInput {
  const profile = labProfileOf(facts);
  const position = streamsPosition({
    target: targetName(cell.target),
    platform: cell.target.platform,
    arch: cell.arch,
    memoryMb: cell.memoryMb,
    probe: cell.probe.kind,
    parameters: probeParameters(cell.probe),
    environments: cell.environments ?? 1,
    vpc: cell.vpc ?? false,
  });
  return {
    platform: cell.target.platform,
    sustainedBitsPerSecond: figures.sustainedBitsPerSecond,
    sustainedMissing: figures.sustainedMissing,
    quota: ceilingInForce(cell, facts),
    streams: position === null ? null : streamsOf(cell, position.streams),
    flowCap: flowCapOf(
      cell,
      profile,
      sweeps.find((sweep) => sweep.key === position?.key),
    ),
    cpu:
      figures.cpuUsedCores === null
        ? null
        : { usedCores: figures.cpuUsedCores, shareCores: figures.cpuShareCores },
    server: serverUse(records),
  };
}

/** The transfer's connections (a bidir iperf3 test counts both directions, each with its own cap). */
function streamsOf(cell: Cell, streams: number): number {
  return plannedProbe(cell.probe).streams?.connections(cell.probe, streams) ?? streams;
}

function flowCapOf(
  cell: Cell,
  profile: LabProfile | null,
  sweep: StreamsSweep | undefined,
): BottleneckInput["flowCap"] {
  const fit = sweep?.fit;
  if (fit?.verdict === "cap" && fit.flowBitsPerSecond !== null) {
    return {
      bitsPerSecond: fit.flowBitsPerSecond,
      basis: `fitted on the sustained rates of this run's streams sweep at ${fit.flowLimitedStreams.join(", ")} stream(s)`,
    };
  }
  if (!profile) return null;
  const caps = [flowCapBitsPerSecond(profile)];
  // each S3 request is a connection of its own, under the S3 side's per-request cap too
  if (probeNamed(cell.probe.kind)?.peer === "s3") {
    const perRequest = profile.s3ConnectionBytesPerSecond;
    caps.push(perRequest === null ? null : perRequest * 8);
  }
  const known = caps.filter((cap): cap is number => cap !== null);
  if (known.length === 0) return null;
  return { bitsPerSecond: Math.min(...known), basis: `lab profile ${profile.name}'s per-connection cap` };
}

/** Median server cores over the cell's successful invocations that recorded the server side. */
function serverUse(records: readonly ResultRecord[]): BottleneckInput["server"] {
  const used = records.filter((record) => record.ok && !record.warmup && record.serverCpu);
  if (used.length === 0) return null;
  const first = used[0]?.serverCpu as NonNullable<ResultRecord["serverCpu"]>;
  const usedCores = median(
    used.map((record) => {
      const server = record.serverCpu as NonNullable<ResultRecord["serverCpu"]>;
      // the server works while the transfer runs: its measured period, where the probe gives one
      const seconds = record.seconds !== null && record.seconds > 0 ? record.seconds : server.wallSeconds;
      return seconds > 0 ? server.seconds / seconds : 0;
    }),
  );
  return { name: first.server, usedCores, capacityCores: first.capacityCores };
}
