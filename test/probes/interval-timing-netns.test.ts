import { existsSync } from "node:fs";
import { test } from "node:test";
import { acquireBenchLock } from "../helpers/bench-lock.js";
import { createNetnsPair } from "../helpers/netns-pair.js";
import { runStockClient } from "./iperf3-support/stock-client.js";
import { startStockServer } from "./iperf3-support/stock-server.js";
import { assertHonestIntervals, runStalledProbe, runStalledServer } from "./support/interval-checks.js";

/**
 * Issue 10: a blocked event loop must not turn into impossible intervals. The iperf3 probe runs
 * in the client namespace of a tbf-shaped pair against the stock server; 1.2 s into a 4 s test
 * its event loop is blocked for 600 ms. Every interval must stay within the link's rate (+15 %
 * for tbf's bucket and timer jitter) and no near-empty interval may be followed by a catch-up.
 */
const LINK_MBIT = 200;
/** Senders subtract what /proc/net/tcp shows unacknowledged; without it they get the first-interval allowance. */
const CAN_READ_TX_QUEUE = existsSync("/proc/net/tcp");

for (const reverse of [false, true]) {
  const label = reverse ? "download (-R)" : "upload";
  test(`iperf3 ${label} on a ${LINK_MBIT} Mbit/s link, 600 ms blocked event loop: honest intervals`, async () => {
    const lock = await acquireBenchLock(120);
    const pair = createNetnsPair("lnbt");
    try {
      // each direction is shaped at its sender
      pair.shape(LINK_MBIT, { sides: reverse ? "server" : "client", burst: "64kb" });
      const server = await startStockServer({ port: 5201, command: [...pair.exec(pair.serverNs), "iperf3"] });
      try {
        const run = await runStalledProbe(
          pair.exec(pair.clientNs),
          { probe: "iperf3", host: pair.serverAddress, port: server.port, timeSeconds: 4, reverse },
          { atMs: 1_500, forMs: 600 },
        );
        // a sender's samples subtract what its kernel holds unacknowledged: held to the link like a receiver's
        assertHonestIntervals(run, LINK_MBIT * 1e6, `iperf3 ${label}`, !reverse && !CAN_READ_TX_QUEUE);
      } finally {
        await server.stop();
      }
    } finally {
      pair.remove();
      lock.release();
    }
  });
}

for (const reverse of [false, true]) {
  const label = reverse ? "sending (-R)" : "receiving";
  test(`our iperf3 server ${label} on a ${LINK_MBIT} Mbit/s link, 600 ms blocked event loop: honest intervals`, async () => {
    const lock = await acquireBenchLock(120);
    const pair = createNetnsPair("lnbt");
    try {
      pair.shape(LINK_MBIT, { sides: reverse ? "server" : "client", burst: "64kb" });
      const run = await runStalledServer(
        pair.exec(pair.serverNs),
        5201,
        { atMs: 1_500, forMs: 600 },
        async () => {
          const report = await runStockClient(
            pair.serverAddress,
            5201,
            ["-t", "4", ...(reverse ? ["-R"] : [])],
            {
              netns: pair.clientNs,
              timeoutMs: 30_000,
            },
          );
          if (report.error) throw new Error(report.error);
        },
      );
      assertHonestIntervals(run, LINK_MBIT * 1e6, `our server ${label}`, reverse && !CAN_READ_TX_QUEUE);
    } finally {
      pair.remove();
      lock.release();
    }
  });
}
