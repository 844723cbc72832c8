import assert from "node:assert/strict";
import { test } from "node:test";
import { useScratch } from "../helpers/measured-run.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { senderBitsPerSecond } from "../helpers/seed-figures.js";
import { byMemory, runSeed } from "./seed-on-lab.js";

/**
 * The seed preset's iperf3 on the fitted Tokyo profile (the default 625 Mbit/s) at 1/8 of its
 * rates: flat from 1,024 to 10,240 MB, as the study found.
 */
const scratch = useScratch("lnb-seed-tokyo-");
const tokyo = scaledProfile("seed-tokyo-2026", 8);

const M = 1e6;
test(`seed preset on ${tokyo.label}: iperf3 flat from 1,024 to 10,240 MB`, {
  timeout: 1_800_000,
}, async () => {
  const records = await runSeed(scratch(), tokyo, (kind) => kind === "iperf3");
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
