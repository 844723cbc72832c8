/**
 * `npm run bench -- iperf3` (takes the machine-wide bench lock itself): our iperf3 client vs the stock
 * iperf3 3.12 client against the stock server, on an unshaped veth pair between two network
 * namespaces: -P 1 and -P 4, normal and reverse, then our client with its process limited
 * to 0.58 of one core (cgroup v1 cpu quota, what Lambda gives at 1,024 MB).
 * Three alternating runs per case; medians. Needs root (namespaces, cgroups).
 */
import { mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import { createNetnsPair } from "../test/helpers/netns-pair.js";
import {
  type ClientRun,
  type ClientRunOptions,
  measureStockClient,
  median,
  runOurClient,
} from "../test/probes/iperf3-support/client-process.js";
import { startStockServer } from "../test/probes/iperf3-support/stock-server.js";

const ROUNDS = Number(process.env.LNB_BENCH_ROUNDS ?? 3);
const TIME_SECONDS = Number(process.env.LNB_BENCH_SECONDS ?? 5);
const CPU_QUOTA_US = 58_000;
const CPU_PERIOD_US = 100_000;
/** How long the bench waits for the machine-wide lock before it measures unlocked (with a warning). */
const LOCK_WAIT_SECONDS = 1_800;

interface Row {
  client: string;
  parallel: number;
  direction: "send" | "receive";
  limit: string;
  runs: ClientRun[];
}

/** Bytes our side moved: sent (normal) or received (reverse). */
function localGiB(run: ClientRun, reverse: boolean): number {
  const end = run.document.end as { sum_sent: { bytes: number }; sum_received: { bytes: number } };
  return (reverse ? end.sum_received.bytes : end.sum_sent.bytes) / 2 ** 30;
}

function mbit(run: ClientRun, reverse: boolean): number {
  return (reverse ? run.bitsPerSecondReceived : run.bitsPerSecondSent) / 1e6;
}

async function main(): Promise<void> {
  const lock = await acquireBenchLock(LOCK_WAIT_SECONDS);
  const pair = createNetnsPair("lnbc");
  const server = await startStockServer({ port: 5201, command: [...pair.exec(pair.serverNs), "iperf3"] });
  const cgroup = `/sys/fs/cgroup/cpu/lnbc${process.pid}bench`;
  const rows: Row[] = [];
  try {
    mkdirSync(cgroup);
    writeFileSync(`${cgroup}/cpu.cfs_period_us`, String(CPU_PERIOD_US));
    writeFileSync(`${cgroup}/cpu.cfs_quota_us`, String(CPU_QUOTA_US));
    const base = (parallel: number, reverse: boolean, prefix: string[]): ClientRunOptions => ({
      prefix,
      host: pair.serverAddress,
      port: server.port,
      timeSeconds: TIME_SECONDS,
      parallel,
      reverse,
      timeoutMs: 60_000,
    });
    const inNamespace = pair.exec(pair.clientNs);
    // the client's PID joins the cgroup before it execs, so the whole run is limited
    const limited = ["sh", "-c", `echo $$ > ${cgroup}/cgroup.procs && exec "$@"`, "sh", ...inNamespace];
    for (const [limit, prefix] of [
      ["none", inNamespace],
      ["0.58 core", limited],
    ] as const) {
      for (const parallel of [1, 4]) {
        for (const reverse of [false, true]) {
          const ours: Row = {
            client: "ours",
            parallel,
            direction: reverse ? "receive" : "send",
            limit,
            runs: [],
          };
          const stock: Row = { ...ours, client: "stock iperf3 3.12", runs: [] };
          for (let round = 0; round < ROUNDS; round += 1) {
            ours.runs.push(await runOurClient(base(parallel, reverse, prefix)));
            stock.runs.push(await measureStockClient(base(parallel, reverse, prefix)));
          }
          rows.push(ours, stock);
          report(rows.slice(-2));
        }
      }
    }
  } finally {
    await server.stop();
    pair.remove();
    lock.release();
    try {
      rmdirSync(cgroup);
    } catch {
      // a straggler still inside; the kernel frees the group once it exits
    }
  }
  console.log(
    `\n${new Date().toISOString()} · ${os.cpus()[0]?.model ?? "cpu"} · ${os.availableParallelism()} cores · ${os.type()} ${os.release()} · node ${process.version}`,
  );
  console.log(`-t ${TIME_SECONDS}, ${ROUNDS} alternating runs per case, medians (min..max)\n`);
  console.log(
    "| client | -P | our side | CPU limit | Mbit/s (median, min..max) | CPU s/GiB (median) | CPU source |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const row of rows) console.log(formatRow(row));
  const ratios: string[] = [];
  for (let i = 0; i + 1 < rows.length; i += 2) {
    const ours = rows[i] as Row;
    const stock = rows[i + 1] as Row;
    const reverse = ours.direction === "receive";
    ratios.push(
      `-P ${ours.parallel} ${ours.direction} (${ours.limit}): ours/stock = ${(
        median(ours.runs.map((r) => mbit(r, reverse))) / median(stock.runs.map((r) => mbit(r, reverse)))
      ).toFixed(2)}`,
    );
  }
  console.log(`\n${ratios.join("\n")}`);
}

function formatRow(row: Row): string {
  const reverse = row.direction === "receive";
  const rates = row.runs.map((run) => mbit(run, reverse));
  const cpuPerGiB = row.runs.map((run) => run.cpuSeconds / localGiB(run, reverse));
  return `| ${row.client} | ${row.parallel} | ${row.direction} | ${row.limit} | ${median(rates).toFixed(0)} (${Math.min(
    ...rates,
  ).toFixed(
    0,
  )}..${Math.max(...rates).toFixed(0)}) | ${median(cpuPerGiB).toFixed(3)} | ${row.runs[0]?.cpuSource ?? ""} |`;
}

function report(rows: Row[]): void {
  for (const row of rows) console.log(formatRow(row));
}

await main();
