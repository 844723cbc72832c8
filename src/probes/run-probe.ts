import type { AgentEvent } from "../agent/event.js";
import { allocate, burnCpu } from "./diagnostics.js";
import { readEnvironmentInfo } from "./info.js";
import { runIperf3Probe } from "./iperf3/run-probe.js";
import type { ProbeOutcome } from "./probe-outcome.js";
import { runS3GetProbe } from "./s3/run-s3-get.js";
import { runS3PutProbe } from "./s3/run-s3-put.js";

/** Runs the probe an (already validated) event asks for. Shared by the agent and the CLI. */
export async function runProbe(event: AgentEvent): Promise<ProbeOutcome> {
  switch (event.probe) {
    case "iperf3":
      return runIperf3Probe(event);
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
