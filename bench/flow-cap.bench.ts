/**
 * How close our iperf3 server's per-flow cap (the lab's flowMegabitsPerSecond) comes to the cap
 * when it has the CPU: the stock iperf3 client on loopback against the server in this process,
 * each configuration's received Mbit/s as a share of streams x cap. The suite checks only what
 * holds on a loaded host (test/probes/iperf3-server-flow-cap.test.ts: at most the cap, per flow);
 * this is the delivery figure. Alternating rounds, medians. Takes the machine-wide bench lock.
 *   npm run bench -- flow-cap
 */
import { cpus } from "node:os";
import { type Iperf3Server, startIperf3Server } from "../src/probes/iperf3/server.js";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import { runStockClient } from "../test/probes/iperf3-support/stock-client.js";

const LOCK_WAIT_SECONDS = 1_800;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CAPS_MBIT = [25, 100, 400];
const CONFIGS = [
  { label: "-P 1, client sends", args: ["-P", "1"], streams: 1 },
  { label: "-P 3, client sends", args: ["-P", "3"], streams: 3 },
  { label: "-P 1 -R, server sends", args: ["-P", "1", "-R"], streams: 1 },
  { label: "-P 3 -R, server sends", args: ["-P", "3", "-R"], streams: 3 },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const lock = await acquireBenchLock(LOCK_WAIT_SECONDS);
  let capBitsPerSecond = 0;
  let server: Iperf3Server | undefined;
  const shares = new Map<string, number[]>();
  try {
    server = await startIperf3Server({
      port: 0,
      host: "127.0.0.1",
      flowCapBitsPerSecond: () => capBitsPerSecond,
    });
    for (let round = 0; round < ROUNDS; round += 1) {
      const caps = round % 2 === 0 ? CAPS_MBIT : [...CAPS_MBIT].reverse();
      for (const capMbit of caps) {
        capBitsPerSecond = capMbit * 1e6;
        for (const config of CONFIGS) {
          const report = await runStockClient("127.0.0.1", server.port, [
            "-t",
            String(SECONDS),
            "-O",
            "1",
            ...config.args,
          ]);
          const received = report.end.sum_received;
          if (report.error || !received) throw new Error(`${config.label} at ${capMbit}: ${report.error}`);
          const share = received.bits_per_second / (config.streams * capBitsPerSecond);
          const key = `${capMbit}|${config.label}`;
          shares.set(key, [...(shares.get(key) ?? []), share]);
          console.error(
            `round ${round + 1} cap ${capMbit} Mbit/s ${config.label}: ${(received.bits_per_second / 1e6).toFixed(1)} Mbit/s (${(share * 100).toFixed(1)} %)`,
          );
        }
      }
    }
  } finally {
    await server?.close();
    lock.release();
  }
  console.log(
    `\nper-flow cap: stock client on loopback, -t ${SECONDS} -O 1, medians of ${ROUNDS} rounds; ` +
      `${cpus().length} x ${cpus()[0]?.model ?? "?"}; ${new Date().toISOString()}`,
  );
  console.log(`| test | ${CAPS_MBIT.map((cap) => `${cap} Mbit/s a flow`).join(" | ")} |`);
  console.log(`|---|${CAPS_MBIT.map(() => "---:").join("|")}|`);
  for (const config of CONFIGS) {
    const cells = CAPS_MBIT.map((cap) => {
      const list = shares.get(`${cap}|${config.label}`) ?? [];
      return `${(median(list) * 100).toFixed(1)} % (${list.map((s) => (s * 100).toFixed(1)).join(", ")})`;
    });
    console.log(`| ${config.label} | ${cells.join(" | ")} |`);
  }
}

await main();
