/**
 * Child process for the interval-timing tests: runs one probe (event JSON in argv[2]) and
 * blocks its own event loop with a busy loop of argv[4] ms, argv[3] ms after the start, as a
 * GC pause or a CPU-starved environment would. Prints the probe's summary as JSON on stdout.
 * S3 events are signed with s3rver's account.
 */
import { parseAgentEvent } from "../../../src/agent/event.js";
import { runIperf3Probe } from "../../../src/probes/iperf3/run-probe.js";
import type { ProbeOutcome } from "../../../src/probes/probe-outcome.js";
import { runS3GetProbe } from "../../../src/probes/s3/run-s3-get.js";
import { runS3PutProbe } from "../../../src/probes/s3/run-s3-put.js";
import { testDependencies } from "../../helpers/s3-events.js";

const [eventJson, stallAtText, stallText] = process.argv.slice(2);
const event = parseAgentEvent(JSON.parse(eventJson as string));
const stallMs = Number(stallText);
let stalledAtMs: number | null = null;
const startMs = performance.now();
setTimeout(() => {
  stalledAtMs = performance.now() - startMs;
  const until = performance.now() + stallMs;
  while (performance.now() < until) {
    // the event loop is blocked: no timer fires, no socket is read or written
  }
}, Number(stallAtText)).unref();

let outcome: ProbeOutcome;
switch (event.probe) {
  case "iperf3":
    outcome = await runIperf3Probe(event);
    break;
  case "s3-get":
    outcome = await runS3GetProbe(event, testDependencies);
    break;
  case "s3-put":
    outcome = await runS3PutProbe(event, testDependencies);
    break;
  default:
    throw new Error(`stalled-probe: no data probe ${event.probe}`);
}
process.stdout.write(JSON.stringify({ summary: outcome.summary, stalledAtMs }));
