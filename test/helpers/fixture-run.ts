import type { Cell } from "../../src/plan/cell.js";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import type { PlanInput } from "../../src/plan/plan-schema.js";
import type { IntervalSamples } from "../../src/probes/interval-sampler.js";
import type { RunManifest } from "../../src/results/manifest.js";
import type { ResultRecord } from "../../src/results/result-record.js";

/** A manifest for fixed-data tests of statistics and reports (no platform involved). */
export function fixtureManifest(
  planInput: PlanInput,
  quotaBitsPerSecond: Record<string, number | null> = {},
): RunManifest {
  const plan = validatePlan(planInput);
  const platforms: RunManifest["platforms"] = {};
  for (const target of plan.targets) {
    const name = target.platform === "local" ? target.profile : target.region;
    const key = `${target.platform}:${name}`;
    platforms[key] = {
      platform: target.platform,
      target: name,
      emulated: target.platform === "local",
      unshaped: false,
      quotaBitsPerSecond: quotaBitsPerSecond[key] ?? null,
      details: {},
    };
  }
  return {
    schemaVersion: 1,
    runId: "fixture-run",
    createdAt: "2026-11-29T12:00:00.000Z",
    toolVersion: "0.1.0",
    nodeVersion: "v20.0.0",
    hostname: "fixture",
    source: { preset: null, configPath: null, regions: null },
    plan,
    cells: expandPlan(plan, "arm64"),
    platforms,
    completedAt: "2026-11-29T12:10:00.000Z",
  };
}

/** One iperf3 upload cell on default-625 at a 625 Mbit/s quota: the smallest run a report reads. */
export function defaultLabManifest(name: string, repetitions = 3): RunManifest {
  return fixtureManifest(
    {
      name,
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024],
      repetitions,
      probes: [{ kind: "iperf3", timeSeconds: 4, parallel: 4 }],
    },
    { "local:default-625": 625e6 },
  );
}

/** A successful record of a cell with the given whole-test rate; samples default to a flat series. */
export function fixtureRecord(
  cell: Cell,
  repetition: number,
  values: {
    bitsPerSecond: number;
    seconds?: number;
    cpuSeconds?: number;
    samples?: ResultRecord["samples"];
    burstFactor?: number;
    /** Rate of the default samples after the first second (default: bitsPerSecond). */
    sustainedBitsPerSecond?: number;
  },
): ResultRecord {
  const seconds = values.seconds ?? 4;
  const bytes = (values.bitsPerSecond * seconds) / 8;
  const intervalBytes = ((values.sustainedBitsPerSecond ?? values.bitsPerSecond) * 0.25) / 8;
  const samples =
    values.samples ??
    fixtureSamples(
      0.25,
      Array.from({ length: seconds * 4 }, (_, i) =>
        i < 4 ? intervalBytes * (values.burstFactor ?? 1) : intervalBytes,
      ),
    );
  return {
    ...baseRecord(cell, repetition),
    ok: true,
    seconds,
    bytes,
    bitsPerSecond: values.bitsPerSecond,
    megabitsPerSecond: values.bitsPerSecond / 1e6,
    direction: "upload",
    cpuSeconds: values.cpuSeconds ?? 0.1 * seconds,
    retransmits: 0,
    retries: 0,
    samples,
    error: null,
  };
}

/**
 * Samples (C1) of back-to-back intervals of `intervalSeconds`, the last one `lastSeconds` long:
 * starts and durations as a probe would have measured them on an idle machine.
 */
export function fixtureSamples(
  intervalSeconds: number,
  bytes: number[],
  lastSeconds = intervalSeconds,
): IntervalSamples {
  const durationSeconds = bytes.map((_, i) => (i === bytes.length - 1 ? lastSeconds : intervalSeconds));
  return {
    intervalSeconds,
    startSeconds: bytes.map((_, i) => i * intervalSeconds),
    durationSeconds,
    bytes: [...bytes],
  };
}

export function fixtureFailure(cell: Cell, repetition: number, kind: string): ResultRecord {
  return { ...baseRecord(cell, repetition), ok: false, error: { kind, message: `${kind} in fixture` } };
}

function baseRecord(cell: Cell, repetition: number): ResultRecord {
  return {
    schemaVersion: 2,
    runId: "fixture-run",
    cellId: cell.id,
    repetition,
    warmup: false,
    platform: cell.target.platform,
    target: cell.target.platform === "local" ? cell.target.profile : cell.target.region,
    memoryMb: cell.memoryMb,
    arch: cell.arch,
    probe: cell.probe.kind,
    probeLabel: cell.probeLabel,
    probeKey: cell.probeKey,
    parameters: {},
    startedAt: "2026-11-29T12:01:00.000Z",
    durationSeconds: 5,
    ok: false,
    seconds: null,
    bytes: null,
    bitsPerSecond: null,
    megabitsPerSecond: null,
    direction: null,
    cpuSeconds: null,
    retransmits: null,
    retries: null,
    samples: null,
    sent: null,
    received: null,
    iperf3: null,
    wholeSeconds: null,
    environmentId: `env-${cell.memoryMb}`,
    invocationNumber: repetition + 1,
    cold: false,
    vpc: false,
    environments: cell.environments ?? 1,
    environmentIndex: 0,
    groupId: null,
    agentEndedAt: null,
    detail: null,
    error: null,
  };
}
