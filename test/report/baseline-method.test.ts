import assert from "node:assert/strict";
import { test } from "node:test";
import type { Cell } from "../../src/plan/cell.js";
import { builtInProfiles } from "../../src/plan/lab-profile.js";
import { compareWithBaseline, renderBaselineCompact } from "../../src/report/baseline-comparison.js";
import { renderMarkdown } from "../../src/report/markdown-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { loadBaseline, methodDifferences } from "../../src/results/baseline.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * The published study's figures are its method's: iperf3 -t 10 -P 4 keeping sum_sent, and the
 * whole seconds of one 1 GiB object at concurrency 10 in 16 MiB chunks. A run measured another
 * way (the quick preset's -t 8, a smaller object) stands beside them without a percentage and
 * says what differs; the same method gets one.
 */

const manifest = fixtureManifest(
  {
    name: "baseline-method",
    targets: [{ platform: "local", profile: "raised-3000" }],
    memoryMb: [1024, 10240],
    repetitions: 3,
    probes: [
      { kind: "iperf3", timeSeconds: 8, parallel: 4, direction: "upload" },
      { kind: "iperf3", timeSeconds: 10, parallel: 4, direction: "upload" },
      { kind: "s3-get", objectMib: 256, concurrency: 10, chunkMib: 16 },
      { kind: "s3-get", objectMib: 1024, concurrency: 10, chunkMib: 16 },
    ],
  },
  { "local:raised-3000": 3_000e6 },
);
const raised = builtInProfiles.find((p) => p.name === "raised-3000");
(manifest.platforms["local:raised-3000"] as { details: Record<string, unknown> }).details.profile = raised;

const ratePerMemory = (memoryMb: number) => (memoryMb >= 10240 ? 2_870e6 : 600e6);

function records(cell: Cell): ResultRecord[] {
  return [1, 2, 3].map((repetition) => {
    const rate = ratePerMemory(cell.memoryMb);
    if (cell.probe.kind === "iperf3") {
      const seconds = cell.probe.timeSeconds;
      const record = fixtureRecord(cell, repetition, { bitsPerSecond: rate, seconds });
      const bytes = (rate * seconds) / 8;
      return {
        ...record,
        sent: { bytes, seconds, bitsPerSecond: rate, retransmits: 0 },
        received: { bytes, seconds, bitsPerSecond: rate },
      } as unknown as ResultRecord;
    }
    const objectBytes = (cell.probe as { objectMib: number }).objectMib * 1_048_576;
    const seconds = Math.max(1, Math.round((objectBytes * 8) / rate));
    const record = fixtureRecord(cell, repetition, { bitsPerSecond: (objectBytes * 8) / seconds, seconds });
    return { ...record, wholeSeconds: seconds + 0.4 } as unknown as ResultRecord;
  });
}

const model = buildReportModel(manifest, manifest.cells.flatMap(records));
const comparison = compareWithBaseline(model);
const rowOf = (probeLabel: string, memoryMb: number) => {
  const row = comparison?.rows.find((r) => r.probeLabel === probeLabel && r.memoryMb === memoryMb);
  assert.ok(row, `${probeLabel} at ${memoryMb} MB`);
  return row;
};

test("methodDifferences: the study's own parameters give none; each other one is named with the study's", () => {
  const seed = loadBaseline("seed-2026");
  const iperf3 = seed.series.find((s) => s.id === "us-west-2-iperf3-upload");
  const s3 = seed.series.find((s) => s.id === "us-west-2-s3-get-concurrency-10");
  assert.ok(iperf3 && s3);
  assert.deepEqual(
    methodDifferences(iperf3, { direction: "upload", parallel: 4, timeSeconds: 10, omitSeconds: 0 }),
    [],
  );
  assert.deepEqual(
    methodDifferences(iperf3, { direction: "upload", parallel: 4, timeSeconds: 8, omitSeconds: 2 }),
    ["-t 8 s (the study: 10 s)", "-O 2 s (the study: 0 s)"],
  );
  assert.deepEqual(methodDifferences(s3, { objectMib: 1024, concurrency: 10, chunkMib: 16 }), []);
  assert.deepEqual(methodDifferences(s3, { objectMib: 384, concurrency: 10, chunkMib: 8 }), [
    "object 384 MiB (the study: 1 GiB)",
    "chunk 8 MiB (the study: 16 MiB)",
  ]);
});

test("iperf3 -t 8 beside the study's -t 10: the study's ~2,400, no percentage, the duration named", () => {
  const row = rowOf("iperf3 upload -P 4 -t 8s", 10240);
  assert.equal(row.figure.megabitsPerSecond, 2400);
  assert.equal(row.deltaPercent, null);
  assert.deepEqual(row.differences, ["-t 8 s (the study: 10 s)"]);
  // the same method: sum_sent against the study's figure, 2,870 on ~2,400
  const same = rowOf("iperf3 upload -P 4 -t 10s", 10240);
  assert.deepEqual(same.differences, []);
  assert.equal(same.comparedAs, "sent (sum_sent)");
  assert.ok(Math.abs((same.deltaPercent ?? 0) - ((2870 - 2400) / 2400) * 100) < 1e-9);
  // the profile's caps are said beside it: raised-3000 emulates the quota and no per-flow cap
  assert.equal(same.emulation, "lab: no per-flow cap");
});

test("s3-get of a 256 MiB object: no percentage against the study's 13.36 s for 1 GiB; 1 GiB gets one", () => {
  const small = rowOf("s3-get 256 MiB conc 10 chunk 16 MiB", 1024);
  assert.equal(small.figure.secondsPerObject, 13.36);
  assert.equal(small.deltaPercent, null);
  assert.deepEqual(small.differences, ["object 256 MiB (the study: 1 GiB)"]);
  const whole = rowOf("s3-get 1024 MiB conc 10 chunk 16 MiB", 1024);
  assert.equal(whole.comparedAs, "whole seconds per object");
  // 1 GiB at 600 Mbit/s: 14 s transfer (rounded), 14.4 s whole
  assert.ok(Math.abs((whole.deltaPercent ?? 0) - ((14.4 - 13.36) / 13.36) * 100) < 1e-9);
});

test("the console and report.md say 'no %' and what differs, never a percentage for another method", () => {
  assert.ok(comparison);
  const text = renderBaselineCompact(comparison, 100).join("\n");
  assert.match(text, /raised-3000 iperf3 upload -P 4 -t 8s beside Oregon .*\(lab: no per-flow cap\)/);
  assert.match(text, /no %: measured differently from the study: -t 8 s \(the study: 10 s\)/);
  const md = renderMarkdown(model);
  const line = md
    .split("\n")
    .find((l) => l.includes("iperf3 upload -P 4 -t 8s") && l.includes("| 10,240 |") && l.includes("~2,400"));
  assert.ok(line, md);
  assert.match(line, /no %: -t 8 s \(the study: 10 s\)/);
  assert.doesNotMatch(line, /[+-]\d+\.\d%/);
});
