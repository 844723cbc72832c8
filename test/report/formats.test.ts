import assert from "node:assert/strict";
import { test } from "node:test";
import { compareRuns, renderComparisonText } from "../../src/report/compare-runs.js";
import { csvField, renderCsv } from "../../src/report/csv-format.js";
import { renderJson } from "../../src/report/json-format.js";
import { renderMarkdown } from "../../src/report/markdown-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { renderTerminal } from "../../src/report/terminal-format.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

const { manifest, records } = fixtureStudy();
const model = buildReportModel(manifest, records);

/** The median of the records of one cell, computed here by hand from the records. */
function medianOfRecords(target: string, memoryMb: number, probe: string): number {
  const values = records
    .filter((r) => r.target === target && r.memoryMb === memoryMb && r.probe === probe && r.ok)
    .map((r) => r.bitsPerSecond as number)
    .sort((a, b) => a - b);
  const mid = Math.floor(values.length / 2);
  return values.length % 2
    ? (values[mid] as number)
    : ((values[mid - 1] as number) + (values[mid] as number)) / 2;
}

test("CSV: one row per measuring cell, raw Mbit/s matching the records, labelled emulated", () => {
  const lines = renderCsv(model).trimEnd().split("\r\n");
  assert.equal(lines.length, 1 + 24);
  const header = (lines[0] as string).split(",");
  assert.equal(header[0], "Results");
  assert.ok(header.includes("Median (Mbit/s)"));
  const medianColumn = header.indexOf("Median (Mbit/s)");
  const row = lines.find((l) => l.startsWith("emulated,raised-3000,iperf3 upload -P 4 -t 4s,arm64,8192,"));
  assert.ok(row, "row for raised-3000 8,192 MB iperf3");
  const fields = row.split(",");
  assert.equal(Number(fields[medianColumn]), medianOfRecords("raised-3000", 8192, "iperf3") / 1e6);
  // the failed repetition: n = 2 at 3,072 MB
  const failedRow = lines.find((l) =>
    l.startsWith("emulated,default-625,iperf3 upload -P 4 -t 4s,arm64,3072,"),
  );
  assert.equal(failedRow?.split(",")[header.indexOf("n")], "2");
  assert.equal(csvField('a,"b"'), '"a,""b"""');
});

test("terminal and Markdown: labelled emulated, the medians of the records, failures by kind", () => {
  const text = renderTerminal(model);
  assert.match(text, /^\[EMULATED\]/);
  const expected = Math.round(medianOfRecords("raised-3000", 10240, "iperf3") / 1e6).toLocaleString("en-US");
  assert.match(text, new RegExp(`raised-3000 +iperf3 upload -P 4 -t 4s +arm64 +10,240 +3/3 +${expected} `));
  assert.match(text, /1 connect-timeout/);
  assert.match(text, /72 of 72 invocations recorded, 2 failed/);
  const md = renderMarkdown(model);
  assert.match(md, /^# .*\(emulated\)/);
  assert.match(md, /\| Target \| Probe \| Arch \| Memory \(MB\) \|/);
  assert.match(md, /raised-3000 arm64 iperf3 upload -P 4 -t 4s: plateau 2,970 Mbit\/s/);
});

test("JSON: the analysis in raw units", () => {
  const json = JSON.parse(renderJson(model));
  assert.equal(json.label, "emulated");
  const cell = json.cells.find(
    (c: { target: string; memoryMb: number; probe: string }) =>
      c.target === "raised-3000" && c.memoryMb === 8192 && c.probe === "iperf3",
  );
  assert.equal(cell.average.median, medianOfRecords("raised-3000", 8192, "iperf3"));
  assert.equal(json.curves.length, 4);
});

test("compare: same targets pair by target; deltas of the medians", () => {
  const { manifest: m2, records: r2 } = fixtureStudy();
  const faster = r2.map((r) =>
    r.bitsPerSecond === null ? r : { ...r, bitsPerSecond: r.bitsPerSecond * 1.1 },
  );
  const comparison = compareRuns(model, buildReportModel({ ...m2, runId: "after" }, faster));
  assert.equal(comparison.pairing, "same-target");
  assert.equal(comparison.rows.length, 24);
  for (const row of comparison.rows) {
    assert.ok(
      row.deltaPercent !== null && Math.abs(row.deltaPercent - 10) < 1e-9,
      `${row.probeLabel} ${row.memoryMb}`,
    );
  }
  const text = renderComparisonText(comparison);
  assert.match(text, /A = fixture-run \(EMULATED\), B = after \(EMULATED\)/);
  assert.match(text, /\+10\.0/);
});
