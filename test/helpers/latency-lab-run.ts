import assert from "node:assert/strict";
import type { Architecture } from "../../src/plan/architecture.js";
import type { LatencyMeasurement, ModeMeasurement } from "../../src/probes/latency/measurement.js";
import type { ConnectionMode } from "../../src/probes/latency/options.js";
import type { PrivateLab } from "./private-lab.js";

/** The latency probe's measurement of one invocation in a lab environment (ranged GETs of `key`). */
export async function latencyInLab(
  lab: PrivateLab,
  variant: { memoryMb: number; arch: Architecture },
  key: string,
  event: Record<string, unknown>,
): Promise<LatencyMeasurement> {
  const { s3 } = lab.platform.endpoints();
  const outcome = await lab.platform.invoke(variant, {
    probe: "latency",
    endpoint: s3?.endpoint,
    bucket: s3?.bucket ?? "",
    key,
    pathStyle: true,
    caPem: s3?.caPem,
    ...event,
  });
  assert.ok(outcome.response?.ok, JSON.stringify(outcome.failure ?? outcome.response));
  const latency = outcome.response.summary?.latency;
  assert.ok(latency, "the summary carries the latency measurement");
  return latency;
}

export function modeOf(latency: LatencyMeasurement, name: ConnectionMode): ModeMeasurement {
  const found = latency.modes.find((m) => m.mode === name);
  assert.ok(found, `mode ${name} measured`);
  return found;
}
