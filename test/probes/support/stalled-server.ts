/**
 * Child process for the interval-timing tests: our iperf3 server for one test on argv[2],
 * sampling every 250 ms, whose event loop is blocked for argv[4] ms, argv[3] ms after it
 * printed "listening" (the test starts the client at once). Prints the server's report of the
 * test (with stalledAtMs) as one JSON line, and exits.
 */
import { startIperf3Server } from "../../../src/probes/iperf3/server.js";

const [portText, stallAtText, stallText] = process.argv.slice(2);
let stalledAtMs: number | null = null;
const server = await startIperf3Server({
  port: Number(portText),
  sampleIntervalMs: 250,
  onTestEnd: (report) => {
    process.stdout.write(`${JSON.stringify({ summary: report, stalledAtMs })}\n`);
    void server.close().then(() => process.exit(0));
  },
});
const listeningMs = performance.now();
setTimeout(() => {
  stalledAtMs = performance.now() - listeningMs;
  const until = performance.now() + Number(stallText);
  while (performance.now() < until) {
    // the event loop is blocked: no timer fires, no socket is read
  }
}, Number(stallAtText)).unref();
process.stdout.write("listening\n");
