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
 * 2,864-2,868 Mbit/s vs stock 2,865-2,869. lab-iperf3-truth.test.ts's server test holds that.
 *
 * The cases are split over two files so the light one (default-625) can measure beside another
 * light file while the heavy one (raised-3000, 3,000 Mbit/s) has the machine to itself.
 */
export const arch = process.arch === "x64" ? "x86_64" : "arm64";
export const RUNS = 3;
export const OMIT_SECONDS = 2;
export const TIME_SECONDS = 3;

/** A private lab for the file's truth tests, removed after them; `skip` without root. */
export function useTruthLab(): { skip: string | false; labName: string } {
  const skip = rootSkip("the lab iperf3 truth tests");
  const labName = privateLabName();
  after(async () => {
    if (!skip) await removeLab(labName);
  });
  return { skip, labName };
}

/** The test that our probe measures within 3% of the stock client at `profile` and `memoryMb`. */
export function testProbeAgainstStock(
  lab: { skip: string | false; labName: string },
  profile: string,
  memoryMb: number,
): void {
  const { skip, labName } = lab;
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
