import type { ProbeOutcome } from "./probe-outcome.js";
import type { ProbeEvent, ProbeName } from "./registry.js";

/**
 * How each probe runs, kept apart from its descriptor: the descriptors are facts that plan,
 * runner, report and the scheduled recorder read, and must not pull in the probes' network code
 * (the recorder's bundle may import nothing but the runtime's SDK). Only the agent runs probes.
 * Each runner loads its code on first use, so `lambda-netbench probe iperf3` does not load the
 * S3 signer. A probe in the registry without a line here fails the typecheck.
 */
type Runner<Name extends ProbeName> = (event: Extract<ProbeEvent, { probe: Name }>) => Promise<ProbeOutcome>;

const runners: { [Name in ProbeName]: Runner<Name> } = {
  iperf3: async (event) => (await import("./iperf3/run-probe.js")).runIperf3Probe(event),
  "s3-get": async (event) => (await import("./s3/run-s3-get.js")).runS3GetProbe(event),
  "s3-put": async (event) => (await import("./s3/run-s3-put.js")).runS3PutProbe(event),
  bucket: async (event) => (await import("./bucket/run-bucket.js")).runBucketProbe(event),
  latency: async (event) => (await import("./latency/run-latency.js")).runLatencyProbe(event),
  info: async () => ({ summary: null, detail: await (await import("./info.js")).readEnvironmentInfo() }),
  "cpu-burn": async (event) => ({
    summary: null,
    detail: await (await import("./diagnostics.js")).burnCpu(event.seconds),
  }),
  allocate: async (event) => ({
    summary: null,
    detail: (await import("./diagnostics.js")).allocate(event.mib),
  }),
  "tcp-connect": async (event) => ({
    summary: null,
    detail: await (await import("./diagnostics/tcp-connect.js")).connectOnce(event),
  }),
};

/** Runs the probe an (already validated) event asks for. Shared by the agent and the CLI. */
export function runProbe(event: ProbeEvent): Promise<ProbeOutcome> {
  const run = runners[event.probe] as (event: ProbeEvent) => Promise<ProbeOutcome>;
  return run(event);
}
