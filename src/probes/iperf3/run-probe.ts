import type { Iperf3Event } from "../../agent/event.js";
import { ProbeError } from "../probe-error.js";
import type { ProbeOutcome } from "../probe-outcome.js";

export async function runIperf3Probe(_event: Iperf3Event): Promise<ProbeOutcome> {
  throw new ProbeError("internal", "iperf3 probe: being built (issue 2)");
}
