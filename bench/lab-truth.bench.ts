/**
 * The lab's truth figures at full rate, which the tests check only at scaled rates
 * (test/platforms/lab-iperf3-truth*.test.ts): in one environment of a shaped lab, our iperf3
 * probe against the stock iperf3 client (both against the stock server, alternating, -t 3 -O 2),
 * and the stock client's upload against our iperf3 server and against the stock one. Cases:
 * raised-3000 at 10,240 MB (3,000 Mbit/s) and default-625 at 1,024 MB. Medians of
 * LNB_BENCH_RUNS runs (3 by default); a ratio is against a peer measured in the same run.
 * Needs root. Run: npm run bench -- lab-truth (takes the bench lock itself).
 */
import os from "node:os";
import { removeLab } from "../src/platforms/local/cleanup.js";
import { privateLabName } from "../src/platforms/local/lab-names.js";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import { compareClients, compareServers } from "../test/platforms/iperf3-truth.js";
import { ensureBuilt, median } from "../test/platforms/lab-helpers.js";

const RUNS = Number(process.env.LNB_BENCH_RUNS ?? 3);
/** -t 3 -O 2, as recorded; at full rate a receive buffer is a few ms (the tests measure 6 s). */
const TIME_SECONDS = 3;
const cases = [
  { profile: "raised-3000", memoryMb: 10_240, servers: true },
  { profile: "default-625", memoryMb: 1_024, servers: false },
];
const mbps = (values: number[]) => values.map((v) => (v / 1e6).toFixed(0)).join(", ");

ensureBuilt();
const lock = await acquireBenchLock(3_600);
const labName = privateLabName();
try {
  console.log(
    `lab truth benchmark: ${os.cpus()[0]?.model ?? "?"} x${os.availableParallelism()}, kernel ${os.release()}, node ${process.version}, ${new Date().toISOString()}, load ${os.loadavg()[0]?.toFixed(1)}, runs ${RUNS}, lock ${lock.locked ? "held" : "NOT held"}`,
  );
  console.log(
    "| profile | memory | comparison | direction | ours (Mbit/s) | peer (Mbit/s) | median ratio | peer / shaped wire rate |",
  );
  console.log("| :--- | ---: | :--- | :--- | :--- | :--- | ---: | ---: |");
  for (const c of cases) {
    for (const entry of await compareClients(labName, c.profile, c.memoryMb, RUNS, TIME_SECONDS)) {
      console.log(
        `| ${c.profile} | ${c.memoryMb} | probe / stock client | ${entry.direction} | ${mbps(entry.ours)} | ${mbps(entry.stock)} | ${(median(entry.ours) / median(entry.stock)).toFixed(3)} | ${(median(entry.stock) / entry.expectedWire).toFixed(3)} |`,
      );
    }
    if (c.servers) {
      const rates = await compareServers(labName, c.profile, c.memoryMb, RUNS, TIME_SECONDS);
      console.log(
        `| ${c.profile} | ${c.memoryMb} | our server / stock server | upload | ${mbps(rates.ours)} | ${mbps(rates.stock)} | ${(median(rates.ours) / median(rates.stock)).toFixed(3)} | – |`,
      );
    }
  }
} finally {
  await removeLab(labName);
  lock.release();
}
