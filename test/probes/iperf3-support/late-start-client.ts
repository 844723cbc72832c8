/**
 * Our iperf3 client, in its own process, made to handle TEST_START late: once its data stream
 * has connected and sent its cookie, its event loop is held for BLOCK_MS, so the server's
 * TEST_START, TEST_RUNNING and first data wait in the kernel, as they do for an agent starved
 * of CPU. Prints the result's -J `end`, our samples, the measured period, the streams' close and
 * the bytes before the start mark as JSON.
 *
 * argv: HOST PORT SECONDS BLOCK_MS [BYTES] (a --bytes limit; 0 or none: time only)
 */
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { runIperf3Client } from "../../../src/probes/iperf3/client.js";

const [host = "", port = "0", seconds = "3", blockMs = "1500", bytes = "0"] = process.argv.slice(2);

let sockets = 0;
subscribe("net.client.socket", (message) => {
  sockets += 1;
  // the first socket is the control connection, the second the (only) data stream
  if (sockets !== 2) return;
  (message as { socket: Socket }).socket.once("connect", () => {
    // after the microtasks that write the cookie, before any later read
    setImmediate(() => {
      const until = performance.now() + Number(blockMs);
      while (performance.now() < until) {
        // held: what arrives now waits in the kernel
      }
    });
  });
});

const result = await runIperf3Client({
  host,
  port: Number(port),
  timeSeconds: Number(seconds),
  parallel: 1,
  reverse: true,
  bidir: false,
  omitSeconds: 0,
  blockBytes: 128 * 1024,
  byteLimit: Number(bytes),
  connectTimeoutMs: 10_000,
  reportIntervalSeconds: 1,
});
const { measuredPeriodMs, streamsClosedMs, bytesBeforeStart } = result;
process.stdout.write(
  `${JSON.stringify({ end: result.report.end, samples: result.samples, measuredPeriodMs, streamsClosedMs, bytesBeforeStart })}\n`,
);
