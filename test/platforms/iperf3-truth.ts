import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { LabProfile } from "../../src/plan/lab-profile.js";
import { removeLab } from "../../src/platforms/local/cleanup.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { rootSkip } from "../helpers/root-gate.js";
import type { ScaledProfile } from "../helpers/scaled-profile.js";
import { ensureBuilt, median } from "./lab-helpers.js";

/**
 * Truth: in a lab environment, our iperf3 probe (run by the agent, as on Lambda) measures
 * within 3% of the stock iperf3 client run in the same environment (same namespace, same
 * cgroup), against the lab's iperf3 server. Runs alternate, medians of 3. Each run omits
 * its first 2 s: the token bucket refills between runs, and its ~1 s burst would otherwise
 * dominate a short test; what is compared is the sustained, shaped rate.
 *
 * The tests measure 6 s after the omit, the benchmark 3 s. The stock receiver counts the bytes
 * it has read, so one held off the CPU when its test ends leaves up to a receive buffer unread
 * (ours counts what the kernel received). On 2026-12-07 (quiet run 77) the stock download read
 * 346.2 and 346.0 on 358.6 in two of three 3 s runs: 4.5 MB each, about a full buffer at 375
 * Mbit/s (0.1 s), 3.5% of 3 s. Stopping the stock client for 0.2 s at its end read 335.0. At 6 s
 * one such buffer is 1.7%, inside the 3% the check allows.
 *
 * The peer is the stock iperf3 server, so the clients are compared at the profile's rate. The
 * tests run their profiles scaled (test/helpers/scaled-profile.ts) to at most 500 Mbit/s, where
 * neither client nor server is short of CPU on a busy host; the full-rate comparison (raised-3000
 * at 10,240 MB: 3,000 Mbit/s, and our server against the stock one there) is
 * `npm run bench -- lab-truth` (docs/BENCHMARKS.md).
 */
export const arch = process.arch === "x64" ? "x86_64" : "arm64";
export const RUNS = 3;
export const OMIT_SECONDS = 2;
/** Seconds measured after the omit, in the tests (the benchmark passes 3). */
export const TIME_SECONDS = 6;

/** A private lab for the file's truth tests, removed after them; `skip` without root. */
export function useTruthLab(): { skip: string | false; labName: string } {
  const skip = rootSkip("the lab iperf3 truth tests");
  const labName = privateLabName();
  after(async () => {
    if (!skip) await removeLab(labName);
  });
  return { skip, labName };
}

export interface ClientComparison {
  direction: "download" | "upload";
  /** Our probe's rates and the stock client's, bits per second, alternating runs. */
  ours: number[];
  stock: number[];
  /** Each stock run's 1 s intervals, Mbit/s ("o" for omitted): what a failure message shows. */
  stockIntervals: string[];
  /** The profile's sustained rate on the wire, bits per second. */
  expectedWire: number;
}

interface StockReport {
  intervals: Array<{ sum: { bits_per_second: number; omitted: boolean } }>;
  end: { sum_received: { bits_per_second: number } };
}

/**
 * Our iperf3 probe against the stock client in one environment of a lab on `profile` (built-in
 * name, or a custom profile), both against the stock server: `runs` alternating pairs each way.
 */
export async function compareClients(
  labName: string,
  profile: string | LabProfile,
  memoryMb: number,
  runs = RUNS,
  timeSeconds = TIME_SECONDS,
): Promise<ClientComparison[]> {
  const platform = await LocalPlatform.open({
    profile: typeof profile === "string" ? profile : profile.name,
    ...(typeof profile === "string" ? {} : { customProfiles: [profile] }),
    labName,
    environments: 1,
    mode: "shaped",
    iperf3Server: "stock",
  });
  try {
    await platform.prepare([{ memoryMb, arch }]);
    const host = platform.endpoints().iperf3?.host ?? "";
    const port = platform.endpoints().iperf3?.ports[0] ?? 0;
    const probe = async (reverse: boolean) => {
      const outcome = await platform.invoke(
        { memoryMb, arch },
        { probe: "iperf3", host, port, timeSeconds, omitSeconds: OMIT_SECONDS, reverse },
      );
      assert.ok(outcome.response?.ok, JSON.stringify(outcome.failure ?? outcome.response));
      return outcome.response.summary?.bitsPerSecond ?? 0;
    };
    const stock = async (reverse: boolean) => {
      const args = ["-c", host, "-p", `${port}`, "-t", `${timeSeconds}`, "-O", `${OMIT_SECONDS}`, "-J"];
      const run = await platform.execInEnvironment(memoryMb, "iperf3", reverse ? [...args, "-R"] : args);
      assert.equal(run.exitCode, 0, run.stderr || run.stdout);
      const report = JSON.parse(run.stdout) as StockReport;
      const intervals = report.intervals.map(
        ({ sum }) => `${(sum.bits_per_second / 1e6).toFixed(1)}${sum.omitted ? "o" : ""}`,
      );
      return { rate: report.end.sum_received.bits_per_second, intervals: intervals.join(" ") };
    };
    const comparisons: ClientComparison[] = [];
    for (const reverse of [true, false]) {
      const entry: ClientComparison = {
        direction: reverse ? "download" : "upload",
        ours: [],
        stock: [],
        stockIntervals: [],
        expectedWire: platform.shapeFor(memoryMb)[reverse ? "download" : "upload"].rateBitsPerSecond,
      };
      for (let run = 0; run < runs; run += 1) {
        entry.ours.push(await probe(reverse));
        const { rate, intervals } = await stock(reverse);
        entry.stock.push(rate);
        entry.stockIntervals.push(intervals);
      }
      comparisons.push(entry);
    }
    return comparisons;
  } finally {
    await platform.dispose();
  }
}

/**
 * The stock client's upload against our iperf3 server and against the stock one, `runs` each,
 * in a lab on `profile`: what each server received, bits per second.
 */
export async function compareServers(
  labName: string,
  profile: string | LabProfile,
  memoryMb: number,
  runs = RUNS,
  timeSeconds = TIME_SECONDS,
): Promise<{ ours: number[]; stock: number[] }> {
  const rates = { ours: [] as number[], stock: [] as number[] };
  for (const kind of ["ours", "stock"] as const) {
    const platform = await LocalPlatform.open({
      profile: typeof profile === "string" ? profile : profile.name,
      ...(typeof profile === "string" ? {} : { customProfiles: [profile] }),
      labName,
      environments: 1,
      mode: "shaped",
      iperf3Server: kind,
    });
    try {
      await platform.prepare([{ memoryMb, arch }]);
      const port = `${platform.endpoints().iperf3?.ports[0]}`;
      for (let run = 0; run < runs; run += 1) {
        const args = ["-c", platform.endpoints().iperf3?.host ?? "", "-p", port, "-t", `${timeSeconds}`];
        const result = await platform.execInEnvironment(memoryMb, "iperf3", [
          ...args,
          "-O",
          `${OMIT_SECONDS}`,
          "-J",
        ]);
        assert.equal(result.exitCode, 0, result.stderr || result.stdout);
        const report = JSON.parse(result.stdout) as { end: { sum_received: { bits_per_second: number } } };
        rates[kind].push(report.end.sum_received.bits_per_second);
      }
    } finally {
      await platform.dispose();
    }
  }
  return rates;
}

/** The test that our probe measures within 3% of the stock client on `scaled` at `memoryMb`. */
export function testProbeAgainstStock(
  lab: { skip: string | false; labName: string },
  scaled: ScaledProfile,
  memoryMb: number,
): void {
  const { skip, labName } = lab;
  test(`${scaled.label} at ${memoryMb} MB: the iperf3 probe is within 3% of stock iperf3`, {
    skip,
    timeout: 900_000,
  }, async (t) => {
    ensureBuilt();
    for (const { direction, ours, stock, stockIntervals, expectedWire } of await compareClients(
      labName,
      scaled.profile,
      memoryMb,
    )) {
      const ratio = median(ours) / median(stock);
      t.diagnostic(
        `${direction}: probe ${(median(ours) / 1e6).toFixed(1)} Mbit/s, stock ${(median(stock) / 1e6).toFixed(1)} Mbit/s, ratio ${ratio.toFixed(3)}`,
      );
      assert.ok(
        Math.abs(ratio - 1) <= 0.03,
        `${direction}: probe/stock = ${ratio} (${ours} vs ${stock}; stock's intervals: ${stockIntervals.join(" | ")})`,
      );
      // and both see the shaped rate: the profile's wire rate minus TCP/IP header overhead (~4%)
      const shaped = median(stock) / expectedWire;
      assert.ok(
        shaped > 0.9 && shaped <= 1.0,
        `${direction}: stock measured ${shaped} of the profile's rate`,
      );
    }
  });
}
