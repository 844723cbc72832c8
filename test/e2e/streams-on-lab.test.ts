import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { recordRates } from "../../src/results/record-rates.js";
import { streamsSweeps } from "../../src/results/streams-sweeps.js";
import { runOnPrivateLab, useScratch } from "../helpers/measured-run.js";
import { type ScaledProfile, scaledProfile } from "../helpers/scaled-profile.js";

/**
 * A streams sweep in the lab finds the per-flow cap the profile sets (seed-oregon-2026 at 1/8:
 * 75 Mbit/s per TCP connection, paced by the lab's iperf3 server, under a 375 quota) within 5%,
 * and reports "none seen" on a profile without one (default-625 at 1/8: one stream fills the
 * 78 quota). Short tests with an omit period, so the burst bucket does not count.
 */
const scratch = useScratch("lnb-streams-");
const oregon = scaledProfile("seed-oregon-2026", 8);
const flat = scaledProfile("default-625", 8);

async function sweep(scaled: ScaledProfile, memoryMb: number) {
  const profile = scaled.name;
  const plan = validatePlan({
    name: `streams-${profile}`,
    targets: [{ platform: "local", profile }],
    profiles: [scaled.profile],
    memoryMb: [memoryMb],
    repetitions: 2,
    probes: [{ kind: "iperf3", timeSeconds: 3, omitSeconds: 1, parallel: [1, 2, 8], direction: "upload" }],
  });
  const records = await runOnPrivateLab(plan, join(scratch(), profile));
  // the sustained rates the run's analysis fits on (these upload tests start after their omit)
  const sweeps = streamsSweeps(records, (record) => recordRates(record)?.sustainedBitsPerSecond ?? null);
  assert.equal(sweeps.length, 1);
  const found = sweeps[0];
  assert.ok(found);
  console.log(
    `${profile} ${memoryMb} MB: ${found.points.map((p) => `${p.streams}: ${p.bitsPerSecond.map((b) => (b / 1e6).toFixed(1)).join("/")}`).join(", ")}\n  ${found.fit.summary}`,
  );
  return found.fit;
}

test(`a streams sweep recovers the lab's per-flow cap within 5%, ${oregon.label}`, {
  timeout: 900_000,
}, async () => {
  const fit = await sweep(oregon, 10_240);
  assert.equal(fit.verdict, "cap", fit.summary);
  const capMbps = (fit.flowBitsPerSecond ?? 0) / 1e6;
  assert.ok(Math.abs(capMbps - 75) <= 75 * 0.05, `detected ${capMbps} Mbit/s, profile 75`);
});

test(`without a per-flow cap the sweep reports none seen, ${flat.label}`, { timeout: 900_000 }, async () => {
  const fit = await sweep(flat, 1_024);
  assert.equal(fit.verdict, "none-seen", fit.summary);
  assert.match(fit.summary, /none seen/);
});
