import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { runOnPrivateLab, useScratch } from "../helpers/measured-run.js";
import {
  fitPublished,
  PUBLISHED_REPLAY_ID,
  publishedIntervalsMbps,
  type ReplayFigure,
  replayFigures,
  sampleIntervalsMbps,
} from "../helpers/published-replay.js";
import { rootSkip } from "../helpers/root-gate.js";
import { scaledProfile } from "../helpers/scaled-profile.js";

/**
 * The round trip of a series measured elsewhere (issue 28): the published 1 s iperf3 series of
 * a 1,024 MB function in eu-north-1 (sjakthol 2024: 2,867 Mbit/s in the first second, ~615
 * after), fitted and saved by the CLI as a user would (`fit --published ID --save-profile`),
 * then the saved plan replayed in the lab with its own probe settings (one stream, 1 s
 * intervals, 5 s). Replayed at 1/8 of its rates and bytes (test/helpers/scaled-profile.ts: the
 * burst lasts as long as the original's), so at most 358 Mbit/s crosses the shaper. The replay is
 * judged by the probe's own 1 s samples (what the peer acknowledged, over measured times): the
 * first and third intervals and the median of those after the first within 5% of the original's,
 * scaled, as the issue asks; the second within 10% (below). Three repetitions, medians judged; the
 * saved probe rests before each test (restSeconds) until the bucket has refilled, as the
 * original's fresh function had it full.
 */
const skip = rootSkip("the fit round trip on the lab");
const scratch = useScratch("lnb-fit-replay-");
const DIVISOR = 8;
test(`a published 1 s series (${PUBLISHED_REPLAY_ID}), fitted, saved and replayed at 1/${DIVISOR} rate: the probe's samples within 5% of the original's (the second interval 10%)`, {
  skip,
  timeout: 600_000,
}, async () => {
  const dir = scratch();
  const { plan: saved } = await fitPublished(PUBLISHED_REPLAY_ID, dir);
  const profile = saved.profiles?.[0];
  assert.ok(profile, "the saved plan holds its profile");
  const scaled = scaledProfile(profile, DIVISOR);
  const plan = validatePlan({
    ...saved,
    name: "published-replay",
    targets: [{ platform: "local", profile: scaled.name }],
    profiles: [scaled.profile],
    repetitions: 3,
    warmup: false,
  });
  assert.deepEqual(
    plan.probes.map((probe) => [probe.kind, "intervalMs" in probe ? probe.intervalMs : null]),
    [["iperf3", 1000]],
    "the saved plan replays with the original's 1 s intervals",
  );

  const original = publishedIntervalsMbps(PUBLISHED_REPLAY_ID).map((mbps) => mbps / DIVISOR);
  assert.equal(original.length, 5);

  const records = await runOnPrivateLab(plan, join(dir, "runs"));
  const replays = records.filter((r) => r.ok && r.probe === "iperf3").map(sampleIntervalsMbps);
  assert.equal(replays.length, 3, `three replays: ${JSON.stringify(records.map((r) => r.error))}`);
  const show = (values: number[]) => values.map((v) => v.toFixed(1)).join(" ");
  console.log(`original /${DIVISOR}: ${show(original)}`);
  for (const replay of replays) console.log(`replay:      ${show(replay)}`);

  const within = (figure: ReplayFigure, share: number) =>
    assert.ok(
      Math.abs(figure.error) <= share,
      `${figure.what}: ${figure.replayMbps.toFixed(1)} vs ${figure.originalMbps.toFixed(1)} Mbit/s (${(figure.error * 100).toFixed(1)}%, allowed ${share * 100}%)`,
    );
  const figures = replayFigures(original, replays);
  // The sender's -J intervals (what the kernel accepted) move in steps of half a send buffer,
  // ~0.5 MB: at 1/8 that is 4.2 Mbit/s in a 1 s interval, and the second interval read 88.1, 92.2
  // and 79.6 on 76.8 (quiet run, 2026-12-07), the third 71.0 and 75.5 after it. The samples count
  // what was acknowledged: in a quiet run 355.4-355.7 on 358.4, then 78.1-78.6 in every later
  // interval of three replays (the fitted sustained rate is 78.5; the original's later intervals
  // vary 76.5-81.3, the real network's noise). The second interval holds where the burst ended,
  // and each ms the burst ends later moves 0.28 Mbit (35 kB) into it, 0.37% of its bytes: so 10%.
  const [first, second, third] = figures.intervals;
  for (const figure of [first, third]) if (figure) within(figure, 0.05);
  if (second) within(second, 0.1);
  within(figures.sustained, 0.05);
});
