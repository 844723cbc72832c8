import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type ClientRun,
  type ClientRunOptions,
  median,
  runOurClient,
  runStockClient,
} from "./iperf3-support/client-process.js";
import { createNetnsPair } from "./iperf3-support/netns-pair.js";
import { startStockServer } from "./iperf3-support/stock-server.js";

/**
 * Accuracy on a shaped link: two namespaces, tbf 500 Mbit/s on the client's egress, the
 * stock server in the other namespace. Our client and the stock client alternate three
 * times each; the medians of sum_sent must agree within 2 %. Each run holds the machine-wide
 * benchmark lock so other engineers' measurements do not overlap with it.
 */
test("our client's sum_sent rate on a 500 Mbit/s tbf link is within 2 % of the stock client's", async () => {
  const pair = createNetnsPair(`lnbc${process.pid}`, { aEgressMbit: 500 });
  const server = await startStockServer({ port: 5201, command: [...pair.exec(pair.nsB), "iperf3"] });
  try {
    const runOptions: ClientRunOptions = {
      prefix: ["flock", "-w", "300", "/tmp/lnb-bench.lock", ...pair.exec(pair.nsA)],
      host: pair.addressB,
      port: server.port,
      timeSeconds: 3,
      parallel: 1,
      reverse: false,
      timeoutMs: 320_000,
    };
    const ours: ClientRun[] = [];
    const stock: ClientRun[] = [];
    for (let round = 0; round < 3; round += 1) {
      ours.push(await runOurClient(runOptions));
      stock.push(await runStockClient(runOptions));
    }
    const oursMbit = median(ours.map((run) => run.bitsPerSecondSent)) / 1e6;
    const stockMbit = median(stock.map((run) => run.bitsPerSecondSent)) / 1e6;
    const detail = `ours ${ours.map((r) => (r.bitsPerSecondSent / 1e6).toFixed(1)).join("/")} Mbit/s, stock ${stock
      .map((r) => (r.bitsPerSecondSent / 1e6).toFixed(1))
      .join("/")} Mbit/s`;
    console.log(`accuracy on tbf 500 Mbit/s: ${detail}`);
    // the link is really shaped: both near 500 Mbit/s
    assert.ok(stockMbit > 400 && stockMbit < 560, `stock median ${stockMbit} Mbit/s (${detail})`);
    assert.ok(
      Math.abs(oursMbit / stockMbit - 1) <= 0.02,
      `ours ${oursMbit} vs stock ${stockMbit}: ${detail}`,
    );
  } finally {
    await server.stop();
    pair.destroy();
  }
});
