import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import type { Plan } from "../../src/plan/plan-schema.js";
import { presets } from "../../src/plan/presets.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { acquireBenchLock, type BenchLock } from "../helpers/bench-lock.js";
import {
  type FigureBasis,
  median,
  senderBitsPerSecond,
  wholeDownloadSeconds,
} from "../helpers/seed-figures.js";

/**
 * The seed preset on the fitted profiles reproduces the published table (seed-study.md), with the
 * study's definitions: iperf3 -P 4 -t 10 sender side, S3 1 GiB at concurrency 10 timed whole.
 * 3 repetitions, medians, as the study. Only the probes the checks need run (the single-stream
 * S3 probe of the preset has no published figure), to keep this slow test short (~10 min).
 */
let out: string;
let lock: BenchLock | undefined;
before(
  async () => {
    out = await mkdtemp(join(tmpdir(), "lnb-seedfit-"));
    lock = await acquireBenchLock(1_800);
  },
  { timeout: 2_000_000 },
);
after(async () => {
  lock?.release();
  await rm(out, { recursive: true, force: true });
});

const M = 1e6;
const bases = new Set<FigureBasis>();

async function runSeed(
  profile: string,
  keep: (kind: string, concurrency: unknown) => boolean,
): Promise<ResultRecord[]> {
  const seed = validatePlan(presets.seed);
  const plan: Plan = {
    ...seed,
    name: `seed-${profile}`,
    targets: [{ platform: "local", profile }],
    probes: seed.probes.filter((p) => keep(p.kind, p.kind === "s3-get" ? p.concurrency : null)),
  };
  const parent = join(out, profile);
  const result = await runPlan({
    start: { plan, parentDir: parent, source: { preset: "seed", configPath: null, regions: null } },
    openPlatform: (target) =>
      LocalPlatform.open({
        profile: target.platform === "local" ? target.profile : "",
        labName: privateLabName(),
      }),
  });
  assert.equal(result.remaining, 0);
  const [name] = await readdir(parent);
  const { records } = await readRecords(join(parent, name as string));
  const measured = records.filter((r) => !r.warmup);
  assert.ok(
    measured.every((r) => r.ok),
    JSON.stringify(measured.find((r) => !r.ok)?.error),
  );
  return measured;
}

function byMemory(
  records: ResultRecord[],
  probe: string,
  value: (r: ResultRecord) => number,
): Map<number, number> {
  const groups = new Map<number, number[]>();
  for (const r of records.filter((x) => x.probe === probe)) {
    groups.set(r.memoryMb, [...(groups.get(r.memoryMb) ?? []), value(r)]);
  }
  for (const values of groups.values()) assert.equal(values.length, 3, "3 repetitions per memory size");
  return new Map([...groups].map(([memoryMb, values]) => [memoryMb, median(values)]));
}

const within = (actual: number, expected: number, fraction: number) =>
  Math.abs(actual - expected) <= expected * fraction;

test("seed preset on seed-oregon-2026 reproduces the published Oregon table", {
  timeout: 2_400_000,
}, async () => {
  const records = await runSeed(
    "seed-oregon-2026",
    (kind, concurrency) => kind === "iperf3" || concurrency === 10,
  );
  const sent = byMemory(records, "iperf3", (r) => {
    const figure = senderBitsPerSecond(r);
    bases.add(figure.basis);
    return figure.value;
  });
  const whole = byMemory(records, "s3-get", (r) => {
    const figure = wholeDownloadSeconds(r);
    bases.add(figure.basis);
    return figure.value;
  });
  const table = [...sent.keys()].map(
    (m) =>
      `${m} MB: iperf3 sent ${Math.round((sent.get(m) ?? 0) / M)} Mbit/s, S3 1 GiB ${whole.get(m)?.toFixed(2)} s`,
  );
  console.log(`seed-oregon-2026 (definitions: ${[...bases].join(", ")}):\n  ${table.join("\n  ")}`);
  const s3At = (m: number) => whole.get(m) ?? Number.NaN;
  const iperfAt = (m: number) => (sent.get(m) ?? Number.NaN) / M;
  assert.ok(within(s3At(1_024), 13.36, 0.05), `S3 at 1,024 MB: ${s3At(1_024)} s, study 13.36 s`);
  assert.ok(within(s3At(10_240), 2.89, 0.05), `S3 at 10,240 MB: ${s3At(10_240)} s, study 2.89 s`);
  assert.ok(within(iperfAt(8_192), 2_400, 0.05), `iperf3 at 8,192 MB: ${iperfAt(8_192)}, study ~2,400`);
  assert.ok(within(iperfAt(10_240), 2_400, 0.05), `iperf3 at 10,240 MB: ${iperfAt(10_240)}, study ~2,400`);
  assert.ok(
    within(iperfAt(2_048), iperfAt(1_024), 0.05),
    `iperf3 1,024 vs 2,048 MB: ${iperfAt(1_024)} vs ${iperfAt(2_048)}`,
  );
  const rising = [3_072, 5_120, 8_192].map(iperfAt);
  assert.ok(
    (rising[0] as number) < (rising[1] as number) && (rising[1] as number) < (rising[2] as number),
    `3,072 -> 8,192 MB not rising: ${rising}`,
  );
});

test("seed preset on seed-tokyo-2026: iperf3 flat from 1,024 to 10,240 MB", {
  timeout: 1_800_000,
}, async () => {
  const records = await runSeed("seed-tokyo-2026", (kind) => kind === "iperf3");
  const sent = byMemory(records, "iperf3", (r) => {
    const figure = senderBitsPerSecond(r);
    bases.add(figure.basis);
    return figure.value;
  });
  const values = [...sent.values()];
  console.log(
    `seed-tokyo-2026 iperf3 sent (Mbit/s): ${[...sent].map(([m, v]) => `${m}: ${Math.round(v / M)}`).join(", ")}`,
  );
  const low = Math.min(...values);
  const high = Math.max(...values);
  assert.ok(high <= low * 1.05, `not flat within 5%: ${Math.round(low / M)}-${Math.round(high / M)} Mbit/s`);
});
