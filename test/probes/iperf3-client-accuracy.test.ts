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
 * times each. What our client reports is held to the truth of the same test: its sum_sent
 * against the bytes the stock server counted (sum_received, the server's own figure), in the
 * same relation as the stock client's (2%). Whether our client keeps up with the link is a
 * ratio with room: a loaded host descheduling a Node sender more often than a C one read ours
 * 283 on stock's 291 (2.7% under, one busy loop beside the suite, 2026-12-03), a CPU effect,
 * not a count; at full rate it is 0.999 (npm run bench -- lab-truth, docs/BENCHMARKS.md).
 */
const LINK_MBIT = 300;

test(`our client's sum_sent on a ${LINK_MBIT} Mbit/s tbf link agrees with the stock server's count as the stock client's does (2%), and keeps up with the stock client (90%)`, async () => {
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
      const stockMbit = median(stock.map((run) => run.bitsPerSecondSent)) / 1e6;
      const rates = (runs: ClientRun[]) =>
        runs
          .map(
            (r) => `${(r.bitsPerSecondSent / 1e6).toFixed(1)}/${(r.bitsPerSecondReceived / 1e6).toFixed(1)}`,
          )
          .join(", ");
      const detail = `sent/server received, ours ${rates(ours)} Mbit/s; stock ${rates(stock)} Mbit/s`;
      console.log(`accuracy on tbf ${LINK_MBIT} Mbit/s: ${detail}`);
      // the link is really shaped: the stock client near its rate
      assert.ok(
        stockMbit > LINK_MBIT * 0.8 && stockMbit < LINK_MBIT * 1.12,
        `stock median ${stockMbit} Mbit/s (${detail})`,
      );
      // sent over the server's count: above 1 by what the send buffer held at the end, for both
      const claim = (runs: ClientRun[]) =>
        median(runs.map((r) => r.bitsPerSecondSent / r.bitsPerSecondReceived));
      assert.ok(
        Math.abs(claim(ours) - claim(stock)) <= 0.02,
        `sent / server received: ours ${claim(ours).toFixed(4)}, stock ${claim(stock).toFixed(4)} (${detail})`,
      );
      const received = (runs: ClientRun[]) => median(runs.map((r) => r.bitsPerSecondReceived));
      assert.ok(
        received(ours) >= 0.9 * received(stock),
        `the server received ${(received(ours) / 1e6).toFixed(1)} Mbit/s from ours, ${(received(stock) / 1e6).toFixed(1)} from stock (${detail})`,
      );
    } finally {
      await server.stop();
    }
  } finally {
    pair.remove();
  }
});
