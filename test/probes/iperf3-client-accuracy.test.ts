import assert from "node:assert/strict";
import { test } from "node:test";
import { createNetnsPair } from "../helpers/netns-pair.js";
import {
  type ClientRun,
  type ClientRunOptions,
  measureStockClient,
  median,
  runOurClient,
} from "./iperf3-support/client-process.js";
import { startStockServer } from "./iperf3-support/stock-server.js";

/**
 * Accuracy on a shaped link: two namespaces, tbf 300 Mbit/s on the client's egress, the
 * stock server in the other namespace. Our client and the stock client alternate three
 * times each; the medians of sum_sent must agree within 2 %. At 300 Mbit/s both clients need
 * little CPU, so the comparison holds on a busy host (full-rate client figures: npm run bench).
 */
const LINK_MBIT = 300;

test(`our client's sum_sent rate on a ${LINK_MBIT} Mbit/s tbf link is within 2 % of the stock client's`, async () => {
  const pair = createNetnsPair("lnbc");
  try {
    pair.shape(LINK_MBIT, { sides: "client", burst: "256kb" });
    const server = await startStockServer({ port: 5201, command: [...pair.exec(pair.serverNs), "iperf3"] });
    try {
      const runOptions: ClientRunOptions = {
        prefix: pair.exec(pair.clientNs),
        host: pair.serverAddress,
        port: server.port,
        timeSeconds: 5,
        parallel: 1,
        reverse: false,
        timeoutMs: 30_000,
      };
      const ours: ClientRun[] = [];
      const stock: ClientRun[] = [];
      for (let round = 0; round < 3; round += 1) {
        ours.push(await runOurClient(runOptions));
        stock.push(await measureStockClient(runOptions));
      }
      const oursMbit = median(ours.map((run) => run.bitsPerSecondSent)) / 1e6;
      const stockMbit = median(stock.map((run) => run.bitsPerSecondSent)) / 1e6;
      const rates = (runs: ClientRun[]) => runs.map((r) => (r.bitsPerSecondSent / 1e6).toFixed(1)).join("/");
      const detail = `ours ${rates(ours)} Mbit/s, stock ${rates(stock)} Mbit/s`;
      console.log(`accuracy on tbf ${LINK_MBIT} Mbit/s: ${detail}`);
      // the link is really shaped: both near its rate
      assert.ok(
        stockMbit > LINK_MBIT * 0.8 && stockMbit < LINK_MBIT * 1.12,
        `stock median ${stockMbit} Mbit/s (${detail})`,
      );
      assert.ok(
        Math.abs(oursMbit / stockMbit - 1) <= 0.02,
        `ours ${oursMbit} vs stock ${stockMbit}: ${detail}`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    pair.remove();
  }
});
