import assert from "node:assert/strict";
import { test } from "node:test";
import { useMeasuringScratch } from "../helpers/measured-run.js";
import { type FigureBasis, senderBitsPerSecond, wholeDownloadSeconds } from "../helpers/seed-figures.js";
import { byMemory, runSeed } from "./seed-on-lab.js";

/**
 * The seed preset on the fitted Oregon profile (raised to 3,000 Mbit/s) reproduces the published
 * table (seed-study.md): iperf3 at the six memory sizes, and S3 1 GiB at concurrency 10 at the
 * two sizes the study publishes (1,024 and 10,240 MB). It needs well under one core of CPU
 * (0.34 on average, 0.59 at the 90th percentile of 1 s samples), so it is "paired" in test/tiers.json.
 */
const scratch = useMeasuringScratch("lnb-seed-oregon-");

const M = 1e6;
const bases = new Set<FigureBasis>();

const within = (actual: number, expected: number, fraction: number) =>
  Math.abs(actual - expected) <= expected * fraction;

test("seed preset on seed-oregon-2026 reproduces the published Oregon table", {
  timeout: 2_400_000,
}, async () => {
  const records = [
    ...(await runSeed(scratch(), "seed-oregon-2026", (kind) => kind === "iperf3")),
    ...(await runSeed(
      scratch(),
      "seed-oregon-2026",
      (kind, concurrency) => kind === "s3-get" && concurrency === 10,
      [1_024, 10_240],
    )),
  ];
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
      `${m} MB: iperf3 sent ${Math.round((sent.get(m) ?? 0) / M)} Mbit/s${whole.has(m) ? `, S3 1 GiB ${whole.get(m)?.toFixed(2)} s` : ""}`,
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
