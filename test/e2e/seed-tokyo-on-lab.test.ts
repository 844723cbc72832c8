import assert from "node:assert/strict";
import { test } from "node:test";
import { useMeasuringScratch } from "../helpers/measured-run.js";
import { senderBitsPerSecond } from "../helpers/seed-figures.js";
import { byMemory, runSeed } from "./seed-on-lab.js";

/**
 * The seed preset's iperf3 on the fitted Tokyo profile (the default 625 Mbit/s): flat from 1,024
 * to 10,240 MB, as the study found. It moves little data, so it may measure beside another
 * light measuring file ("paired" in test/tiers.json).
 */
const scratch = useMeasuringScratch("lnb-seed-tokyo-");

const M = 1e6;
test("seed preset on seed-tokyo-2026: iperf3 flat from 1,024 to 10,240 MB", {
  timeout: 1_800_000,
}, async () => {
  const records = await runSeed(scratch(), "seed-tokyo-2026", (kind) => kind === "iperf3");
  const sent = byMemory(records, "iperf3", (r) => senderBitsPerSecond(r).value);
  const values = [...sent.values()];
  console.log(
    `seed-tokyo-2026 iperf3 sent (Mbit/s): ${[...sent].map(([m, v]) => `${m}: ${Math.round(v / M)}`).join(", ")}`,
  );
  const low = Math.min(...values);
  const high = Math.max(...values);
  assert.ok(high <= low * 1.05, `not flat within 5%: ${Math.round(low / M)}-${Math.round(high / M)} Mbit/s`);
});
