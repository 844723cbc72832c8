import assert from "node:assert/strict";
import { after, test } from "node:test";
import { removeLab } from "../../src/platforms/local/cleanup.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { withBenchLock } from "../helpers/bench-lock.js";
import { rootSkip } from "../helpers/root-gate.js";
import { ensureBuilt, median } from "./lab-helpers.js";

/**
 * Truth: in a lab environment, our iperf3 probe (run by the agent, as on Lambda) measures
 * within 3% of the stock iperf3 client run in the same environment (same namespace, same
 * cgroup), against the lab's iperf3 server. Runs alternate, medians of 3. Each run omits
 * its first 2 s: the token bucket refills between runs, and its ~1 s burst would otherwise
 * dominate a short test; what is compared is the sustained, shaped rate.
 *
 * The peer is the stock iperf3 server, so the clients are compared at the profile's rate:
 * our TypeScript server (the lab's default) received 2.5-2.7 Gbit/s (1.1-1.4 on a loaded host)
 * where stock received 2.87 while other sessions loaded the machine; the servers now run in the
 * lab's cloud CPU group (same weight as an environment) and on a quiet machine ours received
 * 2,864-2,868 Mbit/s vs stock 2,865-2,869. The last test holds that.
 */
const skip = rootSkip("the lab iperf3 truth tests");
const labName = privateLabName();
const arch = process.arch === "x64" ? "x86_64" : "arm64";
const RUNS = 3;
const OMIT_SECONDS = 2;
const TIME_SECONDS = 3;

after(async () => {
  if (!skip) await removeLab(labName);
});

for (const { profile, memoryMb } of [
  { profile: "raised-3000", memoryMb: 10_240 },
  { profile: "default-625", memoryMb: 1024 },
]) {
  test(`${profile} at ${memoryMb} MB: the iperf3 probe is within 3% of stock iperf3`, {
    skip,
    timeout: 900_000,
  }, async (t) => {
    ensureBuilt();
    const platform = await LocalPlatform.open({
      profile,
      labName,
      environments: 1,
      mode: "shaped",
      iperf3Server: "stock",
    });
    try {
      await platform.prepare([{ memoryMb, arch }]);
      const host = platform.endpoints().iperf3?.host ?? "";
      const port = platform.endpoints().iperf3?.ports[0] ?? 0;
      const expectedWire = platform.shapeFor(memoryMb).download.rateBitsPerSecond;
      const probe = async (reverse: boolean) => {
        const outcome = await platform.invoke(
          { memoryMb, arch },
          { probe: "iperf3", host, port, timeSeconds: TIME_SECONDS, omitSeconds: OMIT_SECONDS, reverse },
        );
        assert.ok(outcome.response?.ok, JSON.stringify(outcome.failure ?? outcome.response));
        return outcome.response.summary?.bitsPerSecond ?? 0;
      };
      const stock = async (reverse: boolean) => {
        const args = ["-c", host, "-p", `${port}`, "-t", `${TIME_SECONDS}`, "-O", `${OMIT_SECONDS}`, "-J"];
        const run = await platform.execInEnvironment(memoryMb, "iperf3", reverse ? [...args, "-R"] : args);
        assert.equal(run.exitCode, 0, run.stderr || run.stdout);
        return (JSON.parse(run.stdout) as { end: { sum_received: { bits_per_second: number } } }).end
          .sum_received.bits_per_second;
      };
      await withBenchLock(async () => {
        for (const reverse of [true, false]) {
          const direction = reverse ? "download" : "upload";
          const ours: number[] = [];
          const reference: number[] = [];
          for (let run = 0; run < RUNS; run += 1) {
            ours.push(await probe(reverse));
            reference.push(await stock(reverse));
          }
          const ratio = median(ours) / median(reference);
          t.diagnostic(
            `${direction}: probe ${(median(ours) / 1e6).toFixed(0)} Mbit/s, stock ${(median(reference) / 1e6).toFixed(0)} Mbit/s, ratio ${ratio.toFixed(3)}`,
          );
          assert.ok(
            Math.abs(ratio - 1) <= 0.03,
            `${direction}: probe/stock = ${ratio} (${ours} vs ${reference})`,
          );
          // and both see the shaped rate: the profile's wire rate minus TCP/IP header overhead (~4%)
          const shaped = median(reference) / expectedWire;
          assert.ok(
            shaped > 0.9 && shaped <= 1.0,
            `${direction}: stock measured ${shaped} of the profile's rate`,
          );
        }
      });
    } finally {
      await platform.dispose();
    }
  });
}

test("our iperf3 server carries raised-3000's upload at 10,240 MB like the stock server", {
  skip,
  timeout: 300_000,
}, async (t) => {
  ensureBuilt();
  const memoryMb = 10_240;
  const rates: Record<string, number[]> = { ours: [], stock: [] };
  for (const kind of ["ours", "stock"] as const) {
    const platform = await LocalPlatform.open({
      profile: "raised-3000",
      labName,
      environments: 1,
      mode: "shaped",
      iperf3Server: kind,
    });
    try {
      await platform.prepare([{ memoryMb, arch }]);
      const port = `${platform.endpoints().iperf3?.ports[0]}`;
      await withBenchLock(async () => {
        for (let run = 0; run < RUNS; run += 1) {
          const args = ["-c", platform.endpoints().iperf3?.host ?? "", "-p", port, "-t", `${TIME_SECONDS}`];
          const result = await platform.execInEnvironment(memoryMb, "iperf3", [
            ...args,
            "-O",
            `${OMIT_SECONDS}`,
            "-J",
          ]);
          assert.equal(result.exitCode, 0, result.stderr || result.stdout);
          const report = JSON.parse(result.stdout) as { end: { sum_received: { bits_per_second: number } } };
          rates[kind]?.push(report.end.sum_received.bits_per_second);
        }
      });
    } finally {
      await platform.dispose();
    }
  }
  const ratio = median(rates.ours ?? []) / median(rates.stock ?? []);
  t.diagnostic(`upload with the stock client: ours ${rates.ours} vs stock server ${rates.stock} bit/s`);
  assert.ok(ratio > 0.95, `our server / stock server = ${ratio}`);
});
