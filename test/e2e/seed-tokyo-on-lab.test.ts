import assert from "node:assert/strict";
import { test } from "node:test";
import { useScratch } from "../helpers/measured-run.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { senderBitsPerSecond } from "../helpers/seed-figures.js";
import { byMemory, runSeed } from "./seed-on-lab.js";

/**
 * The seed preset's iperf3 on the fitted Tokyo profile (the default 625 Mbit/s) at 1/8 of its
 * rates: flat from 1,024 to 10,240 MB, as the study found. Three of the preset's six sizes (both
 * ends and the middle) show it; the six take twice as long (197 s of a 1,040 s run, 2026-12-04),
 * and the Oregon file runs all six.
 */
const FLAT_SIZES_MB = [1_024, 5_120, 10_240];
const scratch = useScratch("lnb-seed-tokyo-");
const tokyo = scaledProfile("seed-tokyo-2026", 8);

const M = 1e6;
test(`seed preset on ${tokyo.label}: iperf3 flat from 1,024 to 10,240 MB (three sizes)`, {
  timeout: 1_800_000,
}, async () => {
  const records = await runSeed(scratch(), tokyo, (kind) => kind === "iperf3", FLAT_SIZES_MB);
  const sent = byMemory(records, "iperf3", (r) => senderBitsPerSecond(r).value);
  const values = [...sent.values()];
  console.log(
    `${tokyo.label} iperf3 sent (Mbit/s): ${[...sent].map(([m, v]) => `${m}: ${(v / M).toFixed(1)}`).join(", ")}`,
  );
  const low = Math.min(...values);
  const high = Math.max(...values);
  assert.ok(
    high <= low * 1.05,
    `not flat within 5%: ${(low / M).toFixed(1)}-${(high / M).toFixed(1)} Mbit/s`,
  );
});
