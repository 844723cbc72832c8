import assert from "node:assert/strict";
import { test } from "node:test";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { withBenchLock } from "../helpers/bench-lock.js";
import {
  arch,
  OMIT_SECONDS,
  RUNS,
  TIME_SECONDS,
  testProbeAgainstStock,
  useTruthLab,
} from "./iperf3-truth.js";
import { ensureBuilt, median } from "./lab-helpers.js";

/** The heavy truth cases (3,000 Mbit/s), with the machine to themselves: see iperf3-truth.ts. */
const lab = useTruthLab();
const { skip, labName } = lab;

testProbeAgainstStock(lab, "raised-3000", 10_240);

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
