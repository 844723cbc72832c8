import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { progressRateText } from "../../src/cli/progress.js";
import type { IntervalSamples } from "../../src/probes/interval-sampler.js";
import { compareRuns, renderComparisonCompact } from "../../src/report/compare-runs.js";
import { buildSummaryJson } from "../../src/report/summary-json.js";
import { renderTerminal } from "../../src/report/terminal-format.js";
import { wrap } from "../../src/report/text-layout.js";
import { loadReportModel } from "../../src/report/write-report.js";
import { recordRates } from "../../src/results/record-rates.js";
import { readRecords } from "../../src/results/run-directory.js";
import { cliArgv } from "../helpers/cli-process.js";

const execFileAsync = promisify(execFile);

/** A real `run --preset quick` on a private lab (2026-12-01, 5 min 58 s): its manifest and records (the manifest re-indented by the formatter). */
const quickRun = "test/fixtures/quick-run";

for (const width of [80, 100, 120]) {
  test(`console summary of a real quick run at ${width} columns: no line wider, the verdict first`, async () => {
    const model = await loadReportModel(quickRun);
    const text = renderTerminal(model, { width, baseline: true });
    const lines = text.trimEnd().split("\n");
    const wide = lines.filter((l) => l.length > width);
    assert.deepEqual(wide, [], `lines wider than ${width}`);
    // the label, then the verdict before any table
    assert.equal(lines[0], "[EMULATED] local lab results, not measured on AWS");
    assert.equal(lines[1], "Verdict");
    // n=1-2 a size: equal medians are no evidence of a flat curve, so no "more memory buys no bandwidth"
    assert.match(
      lines[2] ?? "",
      /^ {2}default-625 iperf3 upload: 598 \/ 600 \/ 598 Mbit\/s sustained at 1,024 \/ 5,120 \//,
    );
    assert.doesNotMatch(text, /more memory buys no bandwidth|Recommended/);
    assert.ok(text.indexOf("Verdict") < text.indexOf("Summary:"));
    // raised-3000 scales with memory, but at n<=2 no size can be told from the plateau: the rates
    // in memory order and why there is no knee
    assert.match(
      text.replaceAll(/\n +/g, " "),
      /raised-3000 iperf3 upload: 600 \/ 1,451 \/ 2,849 Mbit\/s sustained at 1,024 \/ 5,120 \/ 10,240 MB; no knee at n<3;/,
    );
    // every cell of this run has n <= 2: marked, no spread printed, one warning
    assert.match(text, /Marks: \* n<3 \(no spread\)/);
    assert.match(
      text.replaceAll(/\n +/g, " "),
      /Warning: every cell has fewer than 3 repetitions \(no spread shown\)/,
    );
    assert.doesNotMatch(text, /±/);
    // the quick preset's single stream now has a sustained rate at every size
    assert.match(text, /s3-get conc 1 +599\* +604\* +575\*/);
  });
}

test("--wide keeps the full table: one row per cell, every column", async () => {
  const model = await loadReportModel(quickRun);
  const text = renderTerminal(model, { wide: true });
  assert.match(text, /Sustained \(Mbit\/s\) \[min-max\] +Burst \(Mbit\/s\) \[min-max\]/);
  assert.match(text, /Avg incl\. burst \(Mbit\/s\) \[min-max\]/);
  assert.ok(
    text.split("\n").some((l) => l.length > 200),
    "the wide table is wide",
  );
});

test("the warning lists only the cells with too few repetitions when others have enough", async () => {
  const model = await loadReportModel(quickRun);
  // raise every iperf3 upload cell to n=3 (as a plan with repetitions: 3 would): the rest stay listed
  for (const cell of model.analysis.cells)
    if (cell.probeLabel.startsWith("iperf3 upload") && cell.sustained)
      cell.sustained = { ...cell.sustained, n: 3 };
  const text = renderTerminal(model, { width: 100 }).replaceAll(/\n +/g, " ");
  assert.match(
    text,
    /Warning: fewer than 3 repetitions \(no spread shown\) in 24 of 30 cells: default-625 iperf3 down -P4 \(every size\)/,
  );
  assert.doesNotMatch(text, /iperf3 up -P4 \(every size\)/);
});

test("progress lines name their rate, or why there is none", async () => {
  const { records } = await readRecords(quickRun);
  const upload = records.find(
    (r) => !r.warmup && r.probeLabel.startsWith("iperf3 upload") && r.target === "default-625",
  );
  assert.ok(upload);
  // default-625's upload ceiling, payload: 625 x 1,448 / 1,514
  const ceiling = (625e6 * 1448) / 1514;
  assert.match(
    progressRateText(recordRates(upload, ceiling)),
    /^598 Mbit\/s sustained \(8\d\d avg incl\. 1\.\d s burst\)$/,
  );
  // time after the last byte (an s3-put's CompleteMultipartUpload) is in the average: said so
  const waited = { ...upload, seconds: (upload.seconds ?? 0) + 2.5, bitsPerSecond: 500e6 };
  assert.match(
    progressRateText(recordRates(waited, ceiling)),
    /^598 Mbit\/s sustained \(500 avg incl\. 1\.\d s burst and 2\.\d s after the last byte\)$/,
  );
  // without a ceiling nothing tells a long burst from a sustained rate: it says so
  assert.match(progressRateText(recordRates(upload)), /^598 Mbit\/s sustained, unconfirmed: no quota known/);
  // the same record cut to its first second: all burst, no sustained part
  const samples = upload.samples as IntervalSamples;
  const short = {
    ...upload,
    seconds: 1,
    samples: {
      ...samples,
      bytes: samples.bytes.slice(0, 4),
      startSeconds: samples.startSeconds.slice(0, 4),
      durationSeconds: samples.durationSeconds.slice(0, 4),
    },
  };
  assert.match(
    progressRateText(recordRates(short, ceiling)),
    /Mbit\/s avg incl\. burst; no sustained rate: ended inside the burst: \d+ MB above the 598 Mbit\/s ceiling in 1\.01 s/,
  );
});

test("compare A A says it is the same run; two runs mark deltas the repetitions cannot tell", async () => {
  const a = await loadReportModel(quickRun);
  const same = compareRuns(a, a);
  assert.equal(same.sameRun, true);
  assert.ok(same.rows.every((r) => r.confidence === "same run" || r.confidence === null));
  const text = renderComparisonCompact(same, 80);
  assert.match(text, /^A and B are the same run/);
  assert.ok(text.split("\n").every((l) => l.length <= 80));
  const b = await loadReportModel(quickRun);
  b.runId = "another-run";
  const two = compareRuns(a, b);
  // n <= 2 on both sides: no delta here can be told from noise
  assert.ok(
    two.rows.filter((r) => r.confidence !== null).every((r) => r.confidence === "n too small to tell"),
  );
  assert.match(renderComparisonCompact(two, 80).replaceAll("\n", " "), /\? n too small to tell/);
});

test("compare A A and --json through the CLI", async () => {
  const { stdout } = await execFileAsync(process.execPath, cliArgv(["compare", quickRun, quickRun]));
  assert.match(stdout, /same run/);
  const json = JSON.parse(
    (await execFileAsync(process.execPath, cliArgv(["compare", quickRun, quickRun, "--json"]))).stdout,
  );
  assert.equal(json.sameRun, true);
  assert.equal(json.rows[0].confidence, "same run");
  assert.equal(typeof json.rows[0].sustainedBitsPerSecondA.median, "number");
});

test("summary JSON (run --json, report --json): verdicts, cells in bit/s, no spread below n=3", async () => {
  const model = await loadReportModel(quickRun);
  const summary = buildSummaryJson(model);
  assert.equal(summary.verdicts.length, 10);
  assert.equal(summary.cells.length, 30);
  const cell = summary.cells.find(
    (c) => c.target === "raised-3000" && c.memoryMb === 10240 && c.probeLabel.startsWith("iperf3 upload"),
  );
  assert.ok(cell?.sustainedBitsPerSecond && cell.sustainedBitsPerSecond.median > 2.8e9);
  assert.equal(cell?.sustainedBitsPerSecond?.min, null, "n=2: no spread");
  assert.deepEqual(cell?.marks, ["*"]);
  assert.equal(summary.warnings.length, 1);
  const { stdout } = await execFileAsync(process.execPath, cliArgv(["report", quickRun, "--json"]));
  assert.deepEqual(
    JSON.parse(stdout).verdicts.map((v: { text: string }) => v.text),
    summary.verdicts.map((v) => v.text),
  );
});

test("wrap keeps the indent and never breaks a word", () => {
  assert.deepEqual(wrap("  one two three four", 10, "    "), ["  one two", "    three", "    four"]);
  assert.deepEqual(wrap("averyveryverylongword x", 5), ["averyveryverylongword", "x"]);
});

test("a run whose records an earlier release wrote (results schema 1) still opens and says what it lacks", async () => {
  const { mkdtemp, readFile, writeFile, copyFile } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = await mkdtemp(join(tmpdir(), "lnb-old-run-"));
  await copyFile(join(quickRun, "manifest.json"), join(dir, "manifest.json"));
  const lines = (await readFile(join(quickRun, "results.jsonl"), "utf8")).trimEnd().split("\n");
  // what schema 1 wrote: no sent/received sides, no whole-download seconds
  const old = lines.map((line) => {
    const { sent: _s, received: _r, wholeSeconds: _w, ...record } = JSON.parse(line);
    return JSON.stringify({ ...record, schemaVersion: 1 });
  });
  await writeFile(join(dir, "results.jsonl"), `${old.join("\n")}\n`);
  const model = await loadReportModel(dir);
  const text = renderTerminal(model, { width: 100 }).replaceAll(/\n +/g, " ");
  assert.match(
    text,
    /Note: 48 records written by an earlier release \(results schema 1\): no iperf3 sent\/received sides/,
  );
  assert.match(text, /Verdict/);
  // the copy keeps its run id: compare opens both and knows they are one run
  const { stdout } = await execFileAsync(process.execPath, cliArgv(["compare", dir, quickRun]));
  assert.match(stdout, /^A and B are the same run/);
});

test("the width: the terminal's columns on a TTY, else COLUMNS, else 100", async () => {
  const { outputWidth } = await import("../../src/report/text-layout.js");
  assert.equal(outputWidth({ isTTY: true, columns: 80 }, "132"), 80);
  assert.equal(outputWidth({ isTTY: true, columns: 132 }, undefined), 132);
  assert.equal(outputWidth({ isTTY: false, columns: 132 }, undefined), 100);
  assert.equal(outputWidth({}, undefined), 100);
  assert.equal(outputWidth({}, "72"), 72);
  assert.equal(outputWidth({}, "12"), 40, "never under 40");
  assert.equal(outputWidth({}, "wide"), 100, "a COLUMNS that is no number is left out");
});
