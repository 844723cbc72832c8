import assert from "node:assert/strict";
import { join } from "node:path";
import { validatePlan } from "../../src/plan/load-plan.js";
import type { Plan } from "../../src/plan/plan-schema.js";
import { presets } from "../../src/plan/presets.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { runOnPrivateLab } from "../helpers/measured-run.js";
import { type ScaledProfile, scaledMib } from "../helpers/scaled-profile.js";
import { median } from "../helpers/seed-figures.js";

/**
 * The seed preset run on a fitted lab profile scaled by test/helpers/scaled-profile.ts, with the
 * study's definitions (seed-study.md): iperf3 -P 4 -t 10 sender side, S3 at concurrency 10 timed
 * whole, 3 repetitions and medians, as the study. The S3 object and its chunks shrink with the
 * rates (1 GiB in 16 MiB chunks at full rate: 128 MiB in 2 MiB chunks at 1/8), so a download
 * takes the study's time and splits into the same 64 parts: the table keeps its ratios and its
 * seconds. `keep` picks the preset's probes a check needs and `memoryMb` the sizes (the preset's
 * six by default), so a slow test runs only what it compares.
 */
export async function runSeed(
  parentDir: string,
  scaled: ScaledProfile,
  keep: (kind: string, concurrency: unknown) => boolean,
  memoryMb?: number[],
): Promise<ResultRecord[]> {
  const seed = validatePlan(presets.seed);
  const plan: Plan = {
    ...seed,
    name: `seed-${scaled.name}`,
    targets: [{ platform: "local", profile: scaled.name }],
    profiles: [scaled.profile],
    ...(memoryMb ? { memoryMb } : {}),
    probes: seed.probes
      .filter((p) => keep(p.kind, p.kind === "s3-get" ? p.concurrency : null))
      .map((p) =>
        p.kind === "s3-get"
          ? {
              ...p,
              objectMib: scaledMib(p.objectMib, scaled.divisor, "the seed's object"),
              chunkMib: scaledMib(p.chunkMib, scaled.divisor, "the seed's chunk"),
            }
          : p,
      ),
  };
  const parent = join(parentDir, `${scaled.name}-${plan.probes.map((p) => p.kind).join("-")}`);
  const records = await runOnPrivateLab(plan, parent, { preset: "seed", configPath: null, regions: null });
  const measured = records.filter((r) => !r.warmup);
  assert.ok(
    measured.every((r) => r.ok),
    JSON.stringify(measured.find((r) => !r.ok)?.error),
  );
  return measured;
}

/** Per memory size, the median of `value` over the probe's 3 repetitions. */
export function byMemory(
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
