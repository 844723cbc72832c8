import assert from "node:assert/strict";
import { test } from "node:test";
import type { Cell } from "../../src/plan/cell.js";
import { renderHtml } from "../../src/report/html-format.js";
import { renderJson } from "../../src/report/json-format.js";
import { renderMarkdown } from "../../src/report/markdown-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { renderTerminal } from "../../src/report/terminal-format.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { fixtureManifest, fixtureRecord, fixtureSamples } from "../helpers/fixture-run.js";

/**
 * The published sjakthol series (iperf3 upload, one stream, 1 s intervals, 1,024 MB) beside the
 * cells of a run that measured the same thing, both fitted alike, with source and n; nothing
 * beside a cell of other streams, interval or memory size.
 */

const manifest = fixtureManifest(
  {
    name: "published-series",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024, 2048],
    repetitions: 3,
    probes: [
      { kind: "iperf3", timeSeconds: 10, parallel: 1, direction: "upload", intervalMs: 1000 },
      { kind: "iperf3", timeSeconds: 10, parallel: 4, direction: "upload", intervalMs: 1000 },
      { kind: "iperf3", timeSeconds: 10, parallel: 1, direction: "upload" },
    ],
  },
  { "local:default-625": 625e6 },
);

/** 10 s: a first second at 2,800 Mbit/s (a 275 MB bucket above 600), then 600 Mbit/s, at the probe's interval. */
function records(cell: Cell): ResultRecord[] {
  const intervalSeconds = cell.probe.kind === "iperf3" && cell.probe.intervalMs === 1000 ? 1 : 0.25;
  const count = 10 / intervalSeconds;
  const sustained = (600e6 / 8) * intervalSeconds;
  const burstIntervals = 1 / intervalSeconds;
  const bytes = Array.from({ length: count }, (_, i) =>
    i < burstIntervals ? (2800e6 / 8) * intervalSeconds : sustained,
  );
  const total = bytes.reduce((a, b) => a + b, 0);
  return [1, 2, 3].map((repetition) =>
    fixtureRecord(cell, repetition, {
      bitsPerSecond: (total * 8) / 10,
      seconds: 10,
      samples: fixtureSamples(intervalSeconds, bytes),
    }),
  );
}

const model = buildReportModel(manifest, manifest.cells.flatMap(records));

test("only the -P 1, 1 s, 1,024 MB cell is set beside the published series, both fitted alike", () => {
  assert.deepEqual(
    model.publishedSeries.map((r) => [r.probeLabel, r.memoryMb, r.published.id]),
    [
      ["iperf3 upload -P 1 -t 10s 1000 ms", 1024, "sjakthol-2024-eu-north-1-1024"],
      ["iperf3 upload -P 1 -t 10s 1000 ms", 1024, "sjakthol-2020-eu-north-1-1024"],
    ],
  );
  const row = model.publishedSeries[0];
  assert.ok(row);
  assert.equal(row.ours.n, 3);
  assert.ok(Math.abs(row.ours.sustainedBitsPerSecond.median - 600e6) < 1e6, "ours: 600 sustained");
  assert.ok(
    Math.abs(row.ours.firstSampleBitsPerSecond.median - 2800e6) < 1e6,
    "ours: 2,800 in the first second",
  );
  assert.ok(Math.abs((row.ours.bucketBytes?.median ?? 0) - 275e6) < 1e6, "ours: 275 MB above 600");
  // the published 2024 series: 2,867 Mbit/s in its first second, ~614-650 after
  assert.equal(row.published.model.n, 1);
  assert.equal(row.published.intervals, 5);
  assert.ok(Math.abs(row.published.model.firstSampleBitsPerSecond.median - 2866.9e6) < 0.5e6);
  const sustained = row.published.model.sustainedBitsPerSecond.median;
  assert.ok(sustained > 600e6 && sustained < 660e6, `published sustained ${sustained}`);
});

test("console, report.md, HTML and report.json show it with its source and n; a run measured otherwise shows none", async () => {
  const text = renderTerminal(model, { width: 100 }).replace(/\s+/g, " ");
  assert.match(text, /Beside a published Lambda series/);
  assert.match(
    text,
    /default-625 arm64 iperf3 upload -P 1 -t 10s 1000 ms at 1,024 MB \(n = 3\): first 1 s 2,800 Mbit\/s, sustained 600/,
  );
  assert.match(
    text,
    /sjakthol-2024-eu-north-1-1024 \(n = 1 transfer, 5 intervals\): first 1 s 2,867 Mbit\/s/,
  );
  assert.match(text, /source: sjakthol\/aws-network-benchmark/);
  // no rest before our tests: the bucket may not have been full, and the text says so
  assert.match(
    text,
    /note: ours ran each test without a rest before it, and the published bucket refills in 3\.5 s/,
  );
  // our cell once, then both published series beside it
  assert.equal(
    text.split("default-625 arm64 iperf3 upload -P 1 -t 10s 1000 ms at 1,024 MB (n = 3)").length,
    2,
  );
  const md = renderMarkdown(model);
  assert.match(md, /## Beside a published Lambda series/);
  assert.match(md, /\| published: sjakthol-2020-eu-north-1-1024 \| 1,024 \| 1 \(5 intervals\) \| 1,824 \|/);
  assert.match(await renderHtml(model), /<h2 id="published-series">Beside a published Lambda series/);
  const json = JSON.parse(renderJson(model));
  assert.equal(json.publishedSeries.length, 2);
  assert.equal(json.publishedSeries[0].published.source.startsWith("sjakthol/aws-network-benchmark"), true);

  // the same run without its 1 s single-stream cell: nothing beside it anywhere
  const others = manifest.cells.filter(
    (c) => !(c.probe.kind === "iperf3" && c.probe.parallel === 1 && c.probe.intervalMs === 1000),
  );
  const without = buildReportModel({ ...manifest, cells: others }, others.flatMap(records));
  assert.deepEqual(without.publishedSeries, []);
  assert.doesNotMatch(renderTerminal(without, { width: 100 }), /published Lambda series/);
  assert.doesNotMatch(renderMarkdown(without), /published Lambda series/);
});
