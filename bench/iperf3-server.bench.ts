/**
 * Stock iperf3 client against the stock server vs against our TypeScript server, on an unshaped
 * veth between two namespaces: Mbit/s and the server process's CPU seconds per GiB it moved
 * (utime + stime from /proc/PID/stat). 3 alternating rounds, medians. Takes the machine-wide
 * bench lock (test/helpers/bench-lock.ts; an outer `flock /tmp/lnb-bench.lock` counts) so no other
 * measurement shares the machine.
 *   npm run bench -- iperf3-server        (as root; builds first)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import { createNetnsPair, type NetnsPair } from "../test/helpers/netns-pair.js";
import { spawnOurServer } from "../test/probes/iperf3-support/our-server.js";
import { runStockClient } from "../test/probes/iperf3-support/stock-client.js";

/** How long the bench waits for the machine-wide lock before it measures unlocked (with a warning). */
const LOCK_WAIT_SECONDS = 1_800;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OUR_PORT = 5201;
const STOCK_PORT = 5202;
const CLOCK_TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());
const GIB = 1024 ** 3;

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface Sample {
  mbitPerSecond: number;
  cpuSecondsPerGib: number;
}

async function main(): Promise<void> {
  execFileSync("npm", ["run", "build"], { stdio: "pipe" });
  const lock = await acquireBenchLock(LOCK_WAIT_SECONDS);
  let pair: NetnsPair | undefined;
  const children: ChildProcess[] = [];
  try {
    pair = createNetnsPair("lnbs");
    const ours = spawnOurServer(pair, OUR_PORT, "ignore");
    const stock = spawn(
      "ip",
      ["netns", "exec", pair.serverNs, "iperf3", "-s", "-p", String(STOCK_PORT), "-B", pair.serverAddress],
      { stdio: "ignore" },
    );
    children.push(ours, stock);
    await pair.waitForListener(pair.serverNs, OUR_PORT);
    await pair.waitForListener(pair.serverNs, STOCK_PORT);
    const servers = [
      { name: "stock iperf3 3.12 -s", port: STOCK_PORT, pid: stock.pid as number },
      { name: "ours (TypeScript)", port: OUR_PORT, pid: ours.pid as number },
    ];
    const configs = [
      { label: "-P 1, client sends", args: ["-P", "1"], reverse: false },
      { label: "-P 4, client sends", args: ["-P", "4"], reverse: false },
      { label: "-P 1 -R, server sends", args: ["-P", "1", "-R"], reverse: true },
      { label: "-P 4 -R, server sends", args: ["-P", "4", "-R"], reverse: true },
    ];
    const samples = new Map<string, Sample[]>();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const config of configs) {
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const server of order) {
          const cpuBefore = cpuSeconds(server.pid);
          const report = await runStockClient(
            pair.serverAddress,
            server.port,
            ["-t", String(SECONDS), ...config.args],
            { netns: pair.clientNs, timeoutMs: (SECONDS + 30) * 1000 },
          );
          const cpu = cpuSeconds(server.pid) - cpuBefore;
          if (report.error) throw new Error(`${server.name} ${config.label}: ${report.error}`);
          // the server's own count: what it received (normal) or sent (reverse)
          const serverSum = config.reverse ? report.end.sum_sent : report.end.sum_received;
          const received = report.end.sum_received;
          if (!serverSum || !received) throw new Error(`${server.name} ${config.label}: no sums`);
          const key = `${config.label}|${server.name}`;
          const list = samples.get(key) ?? [];
          list.push({
            mbitPerSecond: received.bits_per_second / 1e6,
            cpuSecondsPerGib: cpu / (serverSum.bytes / GIB),
          });
          samples.set(key, list);
          console.error(
            `round ${round + 1} ${config.label} ${server.name}: ${(received.bits_per_second / 1e6).toFixed(0)} Mbit/s, ` +
              `${cpu.toFixed(2)} CPU s for ${(serverSum.bytes / GIB).toFixed(2)} GiB`,
          );
        }
      }
    }
    console.log(
      `\niperf3 server: stock client, unshaped veth between namespaces, -t ${SECONDS}, ` +
        `medians of ${ROUNDS} alternating rounds; ${cpus().length} x ${cpus()[0]?.model ?? "?"}; ${new Date().toISOString()}`,
    );
    console.log("| test | server | goodput (Mbit/s) | server CPU (s/GiB) | ours / stock goodput |");
    console.log("|---|---|---:|---:|---:|");
    for (const config of configs) {
      const stockList = samples.get(`${config.label}|${servers[0]?.name}`) ?? [];
      for (const server of servers) {
        const list = samples.get(`${config.label}|${server.name}`) ?? [];
        const mbit = median(list.map((s) => s.mbitPerSecond));
        const cpu = median(list.map((s) => s.cpuSecondsPerGib));
        const ratio =
          server.port === OUR_PORT ? (mbit / median(stockList.map((s) => s.mbitPerSecond))).toFixed(2) : "";
        console.log(
          `| ${config.label} | ${server.name} | ${mbit.toFixed(0)} | ${cpu.toFixed(3)} | ${ratio} |`,
        );
      }
    }
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    pair?.remove();
    lock.release();
  }
}

await main();
