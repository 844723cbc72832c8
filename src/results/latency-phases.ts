import type { ModeMeasurement, RequestTimes } from "../probes/latency/measurement.js";
import type { ConnectionMode } from "../probes/latency/options.js";
import { type Percentiles, percentiles } from "./latency-percentiles.js";

/**
 * The phases of a request, each a duration derived from the probe's cumulative times, and
 * their percentiles per connection mode. A request contributes to a phase only if it had it
 * (a kept-alive request has no connect or TLS), so each phase has its own n. Pure.
 */
export const LATENCY_PHASES = [
  "lookup",
  "connect",
  "tls",
  "send",
  "wait",
  "receive",
  "firstByte",
  "total",
] as const;
export type LatencyPhase = (typeof LATENCY_PHASES)[number];

/** What each phase is, in the words every output uses. */
export const PHASE_LABELS: Record<LatencyPhase, string> = {
  lookup: "name look-up",
  connect: "TCP connect",
  tls: "TLS handshake",
  send: "request sent",
  wait: "sent to first byte",
  receive: "first to last byte",
  firstByte: "time to first byte",
  total: "time to last byte",
};

/** One request's duration of `phase`, seconds; null when the request did not have it. */
export function phaseSeconds(times: RequestTimes, index: number, phase: LatencyPhase): number | null {
  const lookup = times.lookupEndSeconds[index] ?? null;
  const connect = times.connectEndSeconds[index] ?? null;
  const tls = times.tlsEndSeconds[index] ?? null;
  const sent = times.sentSeconds[index] as number;
  const first = times.firstByteSeconds[index] as number;
  const last = times.lastByteSeconds[index] as number;
  switch (phase) {
    case "lookup":
      return lookup;
    case "connect":
      return connect === null ? null : connect - (lookup ?? 0);
    case "tls":
      return tls === null || connect === null ? null : tls - connect;
    case "send":
      return sent - (tls ?? connect ?? 0);
    case "wait":
      return first - sent;
    case "receive":
      return last - first;
    case "firstByte":
      return first;
    case "total":
      return last;
  }
}

export interface ModeLatency {
  mode: ConnectionMode;
  /** Measured requests that completed (pooled over the repetitions given). */
  requests: number;
  failedRequests: number;
  connectionsOpened: number;
  /** Percentiles of each phase; null for a phase no request had. */
  phases: Record<LatencyPhase, Percentiles | null>;
  cpuSeconds: number;
  wallSeconds: number;
  /** CPU seconds per wall second over the measured requests: the cores the requests kept busy. */
  cpuCores: number | null;
  /** CPU seconds per completed request. */
  cpuSecondsPerRequest: number | null;
}

/** One mode's latency over one or more repetitions (all of the same mode), every request pooled. */
export function summarizeMode(measurements: readonly ModeMeasurement[]): ModeLatency | null {
  const first = measurements[0];
  if (!first) return null;
  const values: Record<LatencyPhase, number[]> = Object.fromEntries(
    LATENCY_PHASES.map((p) => [p, []]),
  ) as never;
  let requests = 0;
  for (const measurement of measurements) {
    const count = measurement.requests.lastByteSeconds.length;
    requests += count;
    for (let i = 0; i < count; i += 1) {
      for (const phase of LATENCY_PHASES) {
        const seconds = phaseSeconds(measurement.requests, i, phase);
        if (seconds !== null) values[phase].push(seconds);
      }
    }
  }
  const sum = (pick: (m: ModeMeasurement) => number) => measurements.reduce((total, m) => total + pick(m), 0);
  const cpuSeconds = sum((m) => m.cpuSeconds);
  const wallSeconds = sum((m) => m.wallSeconds);
  return {
    mode: first.mode,
    requests,
    failedRequests: sum((m) => m.failedRequests),
    connectionsOpened: sum((m) => m.connectionsOpened),
    phases: Object.fromEntries(LATENCY_PHASES.map((p) => [p, percentiles(values[p])])) as Record<
      LatencyPhase,
      Percentiles | null
    >,
    cpuSeconds,
    wallSeconds,
    cpuCores: wallSeconds > 0 ? cpuSeconds / wallSeconds : null,
    cpuSecondsPerRequest: requests > 0 ? cpuSeconds / requests : null,
  };
}
