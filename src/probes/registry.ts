import { z } from "zod";
import { bucketProbe } from "./bucket/bucket-probe.js";
import { allocateProbe, cpuBurnProbe, infoProbe, tcpConnectProbe } from "./diagnostics/diagnostic-probes.js";
import { iperf3Probe } from "./iperf3/iperf3-probe.js";
import { latencyProbe } from "./latency/latency-probe.js";
import type { PlannedProbe, ProbeDescriptor } from "./probe-descriptor.js";
import { s3GetProbe } from "./s3/s3-get-probe.js";
import { s3PutProbe } from "./s3/s3-put-probe.js";

/**
 * Every probe, one line each: the agent's event, the plan's probe entries, and every layer
 * that needs a probe's facts read them from here. A new probe is its folder under src/probes/
 * (with its descriptor) and one line in this list. The order is the order of the schemas'
 * unions (and so of plan.schema.json).
 */
export const probeDescriptors = [
  iperf3Probe,
  s3GetProbe,
  s3PutProbe,
  bucketProbe,
  latencyProbe,
  infoProbe,
  cpuBurnProbe,
  allocateProbe,
  tcpConnectProbe,
] as const;

type Descriptors = typeof probeDescriptors;

type EventSchemas<T extends readonly unknown[]> = {
  -readonly [K in keyof T]: T[K] extends { eventSchema: infer Schema } ? Schema : never;
};
/** The plan schemas of the probes a plan may name (descriptors with a `plan`), in registry order. */
type PlanSchemas<
  T extends readonly unknown[],
  Key extends "specSchema" | "entrySchema",
> = T extends readonly [infer Head, ...infer Rest]
  ? Head extends { plan: Record<Key, infer Schema> }
    ? [Schema, ...PlanSchemas<Rest, Key>]
    : PlanSchemas<Rest, Key>
  : [];

const planned = probeDescriptors.flatMap((descriptor) => (descriptor.plan ? [descriptor.plan] : []));

/** The event an execution environment receives: exactly one probe with its options, by `probe`. */
export const probeEventSchema = z.discriminatedUnion(
  "probe",
  probeDescriptors.map((descriptor) => descriptor.eventSchema) as unknown as EventSchemas<Descriptors>,
);

/** One probe of an expanded plan, by `kind`. */
export const probeSpecSchema = z.discriminatedUnion(
  "kind",
  planned.map((plan) => plan.specSchema) as unknown as PlanSchemas<Descriptors, "specSchema">,
);

/** What a plan file may write for a probe (lists where a probe takes them), by `kind`. */
export const probeEntrySchema = z.discriminatedUnion(
  "kind",
  planned.map((plan) => plan.entrySchema) as unknown as PlanSchemas<Descriptors, "entrySchema">,
);

export type ProbeEvent = z.output<typeof probeEventSchema>;
export type ProbeEventInput = z.input<typeof probeEventSchema>;
export type ProbeSpec = z.output<typeof probeSpecSchema>;
export type ProbeEntry = z.output<typeof probeEntrySchema>;
export type ProbeName = ProbeEvent["probe"];

/** A descriptor as the shared code sees it: its callbacks take any probe's spec and event. */
export type AnyPlannedProbe = PlannedProbe<ProbeSpec, ProbeEntry, ProbeEventInput>;
export type AnyProbeDescriptor = ProbeDescriptor<z.ZodType<ProbeEvent>, AnyPlannedProbe | null>;

const byName = new Map<string, AnyProbeDescriptor>(
  probeDescriptors.map((descriptor) => [descriptor.name, descriptor as unknown as AnyProbeDescriptor]),
);

/** The descriptor of a probe name (a record's `probe`, an event's); undefined for a name no probe has. */
export function probeNamed(name: string): AnyProbeDescriptor | undefined {
  return byName.get(name);
}

/** The plan side of a spec's probe (every spec's kind has one: the spec schema is built from them). */
export function plannedProbe(spec: Pick<ProbeSpec, "kind">): AnyPlannedProbe {
  const plan = byName.get(spec.kind)?.plan;
  if (!plan) throw new Error(`no planned probe named "${spec.kind}"`);
  return plan;
}

/** False for a probe that moves no data (info): it gets no rate, curve or verdict. A name no probe has counts as moving data. */
export function movesData(probeName: string): boolean {
  return probeNamed(probeName)?.plan?.movesData ?? true;
}

/**
 * How long an event keeps the iperf3 server busy, seconds (its defaults applied); null for a
 * probe that does not use the iperf3 server.
 */
export function iperf3ServerSeconds(event: ProbeEventInput): number | null {
  const descriptor = probeNamed(event.probe);
  if (descriptor?.peer !== "iperf3-server" || !descriptor.peerSeconds) return null;
  return descriptor.peerSeconds(descriptor.eventSchema.parse(event));
}

/** The distinct test-object sizes a list of specs reads, bytes, in first-use order (one object per size). */
export function testObjectSizes(specs: readonly ProbeSpec[]): number[] {
  return [...new Set(specs.flatMap((spec) => plannedProbe(spec).testObjectBytes(spec) ?? []))];
}
