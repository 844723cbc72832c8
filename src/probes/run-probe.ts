import type { BucketEvent } from "./bucket/options.js";
import { runBucketProbe } from "./bucket/run-bucket.js";
import type { AllocateEvent, CpuBurnEvent, InfoEvent } from "./diagnostics/options.js";
import { allocate, burnCpu } from "./diagnostics.js";
import { readEnvironmentInfo } from "./info.js";
import type { Iperf3Event } from "./iperf3/options.js";
import { runIperf3Probe } from "./iperf3/run-probe.js";
import type { ProbeOutcome } from "./probe-outcome.js";
import type { S3GetEvent, S3PutEvent } from "./s3/options.js";
import { runS3GetProbe } from "./s3/run-s3-get.js";
import { runS3PutProbe } from "./s3/run-s3-put.js";

/** Any probe's validated options (the agent's event composes the same schemas). */
export type ProbeEvent =
  | BucketEvent
  | Iperf3Event
  | S3GetEvent
  | S3PutEvent
  | InfoEvent
  | CpuBurnEvent
  | AllocateEvent;

/** Runs the probe an (already validated) event asks for. Shared by the agent and the CLI. */
export async function runProbe(event: ProbeEvent): Promise<ProbeOutcome> {
  switch (event.probe) {
    case "iperf3":
      return runIperf3Probe(event);
    case "bucket":
      return runBucketProbe(event);
    case "s3-get":
      return runS3GetProbe(event);
    case "s3-put":
      return runS3PutProbe(event);
    case "info":
      return { summary: null, detail: await readEnvironmentInfo() };
    case "cpu-burn":
      return { summary: null, detail: await burnCpu(event.seconds) };
    case "allocate":
      return { summary: null, detail: allocate(event.mib) };
  }
}
