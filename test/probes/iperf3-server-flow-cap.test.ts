import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Iperf3Server, startIperf3Server } from "../../src/probes/iperf3/server.js";
import { runStockClient, type StockReport, type StockSum } from "./iperf3-support/stock-client.js";

// Our server's per-flow cap (the lab's flowMegabitsPerSecond) against the stock iperf3 client on
// loopback: each stream gets at most the cap, uploads through TCP backpressure (the server reads
// slower), downloads through paced sends. Loopback carries far more, so the cap is what limits.
// The shape is checked at 100 Mbit/s a flow, 300 Mbit/s at most in all, which a busy host carries
// with room to spare (the product's caps are rates like these scaled up: the pacing is the same).
const capBitsPerSecond = 100e6;
let server: Iperf3Server;
let cap: number | null = capBitsPerSecond;

before(async () => {
  server = await startIperf3Server({ port: 0, host: "127.0.0.1", flowCapBitsPerSecond: () => cap });
});
after(async () => {
  await server.close();
});

function receivedBitsPerSecond(report: StockReport): number {
  assert.equal(report.error, undefined, `stock client error: ${report.error}`);
  const sum = report.end.sum_received as StockSum | undefined;
  assert.ok(sum && sum.seconds > 0);
  return (sum.bytes * 8) / sum.seconds;
}

test("upload: 2 streams with a 100 Mbit/s per-flow cap receive about 200 Mbit/s", async (t) => {
  const rate = receivedBitsPerSecond(
    await runStockClient("127.0.0.1", server.port, ["-t", "3", "-O", "1", "-P", "2"]),
  );
  t.diagnostic(`received ${(rate / 1e6).toFixed(1)} Mbit/s`);
  assert.ok(Math.abs(rate / (2 * capBitsPerSecond) - 1) < 0.05, `${rate / 1e6} Mbit/s`);
});

test("download (-R): 3 streams with the cap receive about 300 Mbit/s", async (t) => {
  const rate = receivedBitsPerSecond(
    await runStockClient("127.0.0.1", server.port, ["-t", "3", "-O", "1", "-P", "3", "-R"]),
  );
  t.diagnostic(`received ${(rate / 1e6).toFixed(1)} Mbit/s`);
  assert.ok(Math.abs(rate / (3 * capBitsPerSecond) - 1) < 0.05, `${rate / 1e6} Mbit/s`);
});

test("the cap is read at each test start: halved, one stream gets half", async (t) => {
  cap = capBitsPerSecond / 2;
  const rate = receivedBitsPerSecond(await runStockClient("127.0.0.1", server.port, ["-t", "3", "-O", "1"]));
  t.diagnostic(`received ${(rate / 1e6).toFixed(1)} Mbit/s`);
  assert.ok(Math.abs(rate / cap - 1) < 0.05, `${rate / 1e6} Mbit/s`);
});
