import type { Cell } from "../plan/cell.js";
import { probeParameters } from "../plan/cell.js";
import { type PlatformName, targetName } from "../plan/platforms.js";
import type { BucketMeasurement } from "../probes/bucket/measurement.js";
import type { IntervalSamples } from "../probes/interval-sampler.js";
import type { LatencyMeasurement } from "../probes/latency/measurement.js";
import { type BucketFit, fitBucket } from "./bucket-fit.js";
import type { InvocationOutcome, ServerCpuUse } from "./invocation-outcome.js";

/** schemaVersion 1: a nominal interval and the length of the last, partial one. */
export interface LegacyIntervalSamples {
  intervalSeconds: number;
  bytes: number[];
  lastIntervalSeconds: number;
}

import type { Iperf3Breakdown, ReceivedSide, SentSide } from "../probes/probe-summary.js";

/**
 * One JSON line of results.jsonl: one invocation, successful or not (failures are never dropped).
 * Raw units; `megabitsPerSecond` is a convenience copy of `bitsPerSecond / 1e6` for people reading the file.
 * Version 2 gave samples measured interval times and added sent, received, iperf3 and
 * wholeSeconds; version 1 lines (older runs) are read through src/results/samples.ts and
 * src/results/record-sides.ts.
 */
export interface ResultRecord {
  schemaVersion: 2;
  runId: string;
  cellId: string;
  /** 1-based; 0 for a warm-up invocation (never used in statistics). */
  repetition: number;
  warmup: boolean;
  platform: PlatformName;
  /** Lab profile or AWS region. */
  target: string;
  memoryMb: number;
  arch: "arm64" | "x86_64";
  probe: string;
  probeLabel: string;
  probeKey: string;
  parameters: Record<string, unknown>;
  startedAt: string;
  /** Wall time of the invocation as the platform saw it. */
  durationSeconds: number;
  ok: boolean;
  /** Measured period of the probe (null when it did not measure); s3-get: the transfer alone. */
  seconds: number | null;
  /** iperf3 upload: the sender side (sum_sent, as the seed study); download: sum_received; bidir: both received sums. */
  bytes: number | null;
  bitsPerSecond: number | null;
  megabitsPerSecond: number | null;
  direction: "upload" | "download" | "bidir" | "none" | null;
  cpuSeconds: number | null;
  retransmits: number | null;
  retries: number | null;
  /** Measured intervals (schemaVersion 2), or nominal ones in older runs' lines: read through normalizeSamples. */
  samples: IntervalSamples | LegacyIntervalSamples | null;
  /** Sender side: iperf3 end.sum_sent; s3-put: bytes sent. null when n/a. */
  sent: SentSide | null;
  /** Receiver side: iperf3 end.sum_received. null when n/a. */
  received: ReceivedSide | null;
  /** The compact parts of the iperf3 -J document that recompute sent and received; null for other probes. */
  iperf3: Iperf3Breakdown | null;
  /** s3-get: client and credential set-up, HEAD and transfer, as the seed timed boto3's download; null otherwise. */
  wholeSeconds: number | null;
  environmentId: string | null;
  invocationNumber: number | null;
  cold: boolean | null;
  /** Measured by the function attached to a VPC (AWS); false outside one. */
  vpc: boolean;
  /** Environments invoked at once in this record's group (1: alone). */
  environments: number;
  /** 0-based position of this invocation in its group. */
  environmentIndex: number;
  /** Shared by the records of one group (one repetition of one cell); unique per attempt. */
  groupId: string | null;
  /**
   * When the agent finished, by the environment's own clock (ISO, ms): anchors the samples in
   * time, so a group's aggregate can be summed over the window in which all its members ran.
   */
  agentEndedAt: string | null;
  /**
   * bucket probe only: every transfer of its schedule (samples and idle times) and the model
   * fitted to them (null when the samples were too few). Absent in other records.
   */
  bucket?: { measurement: BucketMeasurement; fit: BucketFit | null };
  /** latency probe only: every measured request's phase times, per connection mode. Absent in other records. */
  latency?: LatencyMeasurement;
  /** Small probe details (info, the concurrency s3-get chose with `auto`); null when large or absent. */
  detail: unknown;
  /** The server side's CPU over the invocation (the lab sees it; AWS does not: null). Absent in older runs. */
  serverCpu?: ServerCpuUse | null;
  error: { kind: string; message: string } | null;
}

const maxDetailBytes = 4_096;

export function buildRecord(args: {
  runId: string;
  cell: Cell;
  repetition: number;
  outcome: InvocationOutcome;
  /** The fleet group this invocation ran in; absent for one environment alone. */
  group?: { id: string; size: number; index: number };
}): ResultRecord {
  const { runId, cell, repetition, outcome, group } = args;
  const response = outcome.response;
  const summary = response?.ok ? response.summary : null;
  const error = outcome.failure
    ? { kind: outcome.failure.kind, message: outcome.failure.message }
    : response && !response.ok
      ? { kind: response.error.kind, message: response.error.message }
      : response === null
        ? { kind: "platform", message: "no response and no failure reported" }
        : null;
  let detail: unknown = null;
  if (response?.ok && response.detail !== undefined) {
    const text = JSON.stringify(response.detail);
    if (text !== undefined && text.length <= maxDetailBytes) detail = response.detail;
  }
  return {
    schemaVersion: 2,
    runId,
    cellId: cell.id,
    repetition,
    warmup: repetition === 0,
    platform: cell.target.platform,
    target: targetName(cell.target),
    memoryMb: cell.memoryMb,
    arch: cell.arch,
    probe: cell.probe.kind,
    probeLabel: cell.probeLabel,
    probeKey: cell.probeKey,
    parameters: probeParameters(cell.probe),
    startedAt: outcome.startedAt,
    durationSeconds: outcome.durationSeconds,
    ok: error === null,
    seconds: summary?.seconds ?? null,
    bytes: summary?.bytes ?? null,
    bitsPerSecond: summary?.bitsPerSecond ?? null,
    megabitsPerSecond: summary ? summary.bitsPerSecond / 1e6 : null,
    direction: summary?.direction ?? null,
    cpuSeconds: summary?.cpuSeconds ?? null,
    retransmits: summary?.retransmits ?? null,
    retries: summary?.retries ?? null,
    samples: summary?.samples ?? null,
    sent: summary?.sent ?? null,
    received: summary?.received ?? null,
    iperf3: summary?.iperf3 ?? null,
    wholeSeconds: summary?.wholeSeconds ?? null,
    environmentId: response?.invocation.environmentId ?? null,
    invocationNumber: response?.invocation.invocationNumber ?? null,
    cold: response?.invocation.cold ?? null,
    vpc: cell.vpc ?? false,
    environments: group?.size ?? 1,
    environmentIndex: group?.index ?? 0,
    groupId: group?.id ?? null,
    agentEndedAt: response ? agentEndTime(response.startedAt, response.durationSeconds) : null,
    ...(summary?.bucket ? { bucket: { measurement: summary.bucket, fit: fitBucket(summary.bucket) } } : {}),
    ...(summary?.latency ? { latency: summary.latency } : {}),
    detail,
    serverCpu: outcome.serverCpu ?? null,
    error,
  };
}

function agentEndTime(startedAt: string, durationSeconds: number): string | null {
  const startMs = Date.parse(startedAt);
  return Number.isFinite(startMs) && Number.isFinite(durationSeconds)
    ? new Date(startMs + durationSeconds * 1000).toISOString()
    : null;
}
