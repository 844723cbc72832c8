import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Iperf3Server, startIperf3Server } from "../../src/probes/iperf3/server.js";
import { acquireBenchLock, type BenchLock } from "../helpers/bench-lock.js";
import { runStockClient, type StockReport, type StockSum } from "./iperf3-support/stock-client.js";

// Our server's per-flow cap (the lab's flowMegabitsPerSecond) against the stock iperf3 client on
// loopback: each stream gets at most the cap, uploads through TCP backpressure (the server reads
// slower), downloads through paced sends. Loopback carries far more, so the cap is what limits.
const capBitsPerSecond = 200e6;
let server: Iperf3Server;
let cap: number | null = capBitsPerSecond;
let lock: BenchLock | undefined;

// timing-sensitive: a loaded host delays the pacing timers beyond the bucket's 100 ms
before(
  async () => {
    lock = await acquireBenchLock(1_200);
    server = await startIperf3Server({ port: 0, host: "127.0.0.1", flowCapBitsPerSecond: () => cap });
  },
  { timeout: 1_300_000 },
);
after(async () => {
  await server.close();
  lock?.release();
});

function receivedBitsPerSecond(report: StockReport): number {
  assert.equal(report.error, undefined, `stock client error: ${report.error}`);
  const sum = report.end.sum_received as StockSum | undefined;
  assert.ok(sum && sum.seconds > 0);
  return (sum.bytes * 8) / sum.seconds;
}

test("upload: 2 streams with a 200 Mbit/s per-flow cap receive about 400 Mbit/s", async () => {
  const rate = receivedBitsPerSecond(
    await runStockClient("127.0.0.1", server.port, ["-t", "3", "-O", "1", "-P", "2"]),
  );
  assert.ok(Math.abs(rate / (2 * capBitsPerSecond) - 1) < 0.05, `${rate / 1e6} Mbit/s`);
});

test("download (-R): 3 streams with the cap receive about 600 Mbit/s", async () => {
  const rate = receivedBitsPerSecond(
    await runStockClient("127.0.0.1", server.port, ["-t", "3", "-O", "1", "-P", "3", "-R"]),
  );
  assert.ok(Math.abs(rate / (3 * capBitsPerSecond) - 1) < 0.05, `${rate / 1e6} Mbit/s`);
});

test("the cap is read at each test start: without one, one stream is far above it", async () => {
  cap = null;
  const rate = receivedBitsPerSecond(await runStockClient("127.0.0.1", server.port, ["-t", "2"]));
  assert.ok(rate > 2 * capBitsPerSecond, `${rate / 1e6} Mbit/s`);
});
