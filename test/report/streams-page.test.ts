import assert from "node:assert/strict";
import { test } from "node:test";
import { markdownFormat } from "../../src/report/markdown-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { streamsSweeps } from "../../src/results/streams-sweeps.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

const M = 1e6;

function sweepRecord(parallel: number, bitsPerSecond: number): ResultRecord {
  return {
    probe: "iperf3",
    parameters: { kind: "iperf3", direction: "upload", timeSeconds: 10, omitSeconds: 0, parallel },
    bitsPerSecond,
    memoryMb: 10_240,
    target: "seed-oregon-2026",
    platform: "local",
    arch: "x86_64",
    warmup: false,
    ok: true,
  } as unknown as ResultRecord;
}

// streams.md is a file of the Markdown format, built from the model like every other output, so
// `report RUN_DIR --format md` writes it as `run` does (it used to be written by `run` alone).
test("the Markdown format writes streams.md from the model when the run has a sweep, and only then", async () => {
  const { manifest, records } = fixtureStudy();
  const model = buildReportModel(manifest, records);
  assert.deepEqual(
    (await markdownFormat.render(model)).map((file) => file.fileName),
    ["report.md"],
  );
  const sweeps = streamsSweeps(
    [1, 2, 8, 16].map((p) => sweepRecord(p, Math.min(p * 600, 3_000) * M)),
    (record) => record.bitsPerSecond, // these records' rates stand for their sustained rates
  );
  const withSweep = { ...model, analysis: { ...model.analysis, streams: sweeps } };
  const files = await markdownFormat.render(withSweep);
  assert.deepEqual(
    files.map((file) => file.fileName),
    ["report.md", "streams.md"],
  );
  const page = String(files[1]?.content ?? "");
  assert.match(page, /^# Streams sweeps\n/);
  assert.match(
    page,
    /\| seed-oregon-2026 x86_64 10,240 MB iperf3 upload -t 10s \| 1: 600, 2: 1,200, 8: 3,000, 16: 3,000 \|/,
  );
});
