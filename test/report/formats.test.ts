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
const flatText = (text: string) => text.replace(/\s+/g, " ");
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

/** default-625 iperf3: sustained 625 x 0.99 = 618.75; effective (4 x 2,800 + 12 x 618.75) / 16 = 1,164.06. */
const defaultSustained = 618.75;
const defaultEffective = (4 * 2800 + 12 * 618.75) / 16;

test("CSV: one row per measuring cell; sustained, burst and effective apart, each with n and spread", () => {
  const lines = renderCsv(model).trimEnd().split("\r\n");
  assert.equal(lines.length, 1 + 24);
  const header = (lines[0] as string).split(",");
  assert.equal(header[0], "Results");
  const column = (name: string) => {
    const index = header.indexOf(name);
    assert.ok(index >= 0, name);
    return index;
  };
  const row = lines.find((l) => l.startsWith("emulated,raised-3000,iperf3 upload -P 4 -t 4s,arm64,8192,"));
  assert.ok(row, "row for raised-3000 8,192 MB iperf3");
  const fields = row.split(",");
  assert.equal(
    Number(fields[column("Avg incl. burst median (Mbit/s)")]),
    medianOfRecords("raised-3000", 8192, "iperf3") / 1e6,
  );
  const defaultRow = lines.find((l) =>
    l.startsWith("emulated,default-625,iperf3 upload -P 4 -t 4s,arm64,1024,"),
  );
  const d = defaultRow?.split(",") ?? [];
  assert.ok(Math.abs(Number(d[column("Sustained median (Mbit/s)")]) - defaultSustained) < 1e-6);
  assert.ok(Math.abs(Number(d[column("Avg incl. burst median (Mbit/s)")]) - defaultEffective) < 1e-6);
  assert.equal(Number(d[column("Burst median (Mbit/s)")]), 2800);
  assert.equal(Number(d[column("Burst seconds median (s)")]), 1);
  assert.equal(d[column("Sustained n")], "3");
  assert.ok(Number(d[column("Sustained CV (%)")]) > 0, "spread of the sustained rate");
  assert.equal(d[column("Retransmits median")], "0");
  // the failed repetition: n = 2 at 3,072 MB
  const failedRow = lines.find((l) =>
    l.startsWith("emulated,default-625,iperf3 upload -P 4 -t 4s,arm64,3072,"),
  );
  assert.equal(failedRow?.split(",")[column("Avg incl. burst n")], "2");
  assert.equal(csvField('a,"b"'), '"a,""b"""');
});

test("terminal (--wide) and Markdown: labelled emulated, the medians of the records, failures by kind", () => {
  const text = renderTerminal(model, { wide: true });
  assert.match(text, /^\[EMULATED\]/);
  // sustained [min-max] n, burst, burst length, effective: default-625 1,024 MB
  assert.match(
    text,
    /default-625 +iperf3 upload -P 4 -t 4s +arm64 +1,024 +3\/3 +619 \[588-650\] n=3 +2,800 \[2,800-2,800\] n=3 +1.00 s, 273 MB +1,164 \[1,141-1,187\] n=3 +1,164 \/ 1,152 /,
  );
  // raised-3000 at 10,240 MB: 3,000 x 0.99 = 2,970 sustained, above the 2,800 peak: no burst
  assert.match(text, /raised-3000 +iperf3 upload -P 4 -t 4s +arm64 +10,240 +3\/3 +2,970 .* none /);
  assert.match(text, /1 connect-timeout/);
  assert.match(text, /72 of 72 invocations recorded, 2 failed/);
  const md = renderMarkdown(model);
  assert.match(md, /^# .*\(emulated\)/);
  assert.match(md, /\| Target \| Probe \| Arch \| Memory \(MB\) \|/);
  // 3,072 MB has n=2 there (a failed repetition): the highest median and why there is no knee
  assert.match(
    md,
    /raised-3000 arm64 iperf3 upload -P 4 -t 4s: highest sustained 2,970 Mbit\/s \(median, n=3 at 10,240 MB\); no knee and no recommendation: 3,072 MB has n=2/,
  );
  assert.match(
    md,
    /raised-3000 arm64 s3-get 64 MiB conc 4 chunk 8 MiB: sustained plateau 2,910 Mbit\/s \(median, n=3 at 10,240 MB\), reached from 10,240 MB, every smaller size below it beyond noise, .*Recommended: 10,240 MB \(n=3\)/,
  );
  // the headline is the sustained 619, not the burst-inflated effective 1,164: 100 GB at 618.75 Mbit/s = 1,293 s
  assert.match(
    md,
    /default-625 arm64 iperf3 upload -P 4 -t 4s: sustained plateau 619 Mbit\/s \(median, n=3 at 1,024 MB\), reached from 1,024 MB \(flat over the sizes measured\)\. Recommended: 1,024 MB \(n=3\) at .*100 GB take 21 min 33 s at the sustained rate\./,
  );
  assert.match(md, /## Beside the published study \(seed-2026\)/);
  // s3-get seconds per object: transfer 4.00 s, whole 4.50 s
  assert.match(md, /s3-get 64 MiB conc 4 chunk 8 MiB \| arm64 \| 1,024 \|.*\| 4\.00 \/ 4\.50 \|/);
});

test("the method notes say what the sustained rate is: bytes over time after the burst, held to the ceiling in force (issue 27)", () => {
  const md = flatText(renderMarkdown(model));
  assert.match(md, /SUSTAINED, the bytes after the burst over their measured seconds/);
  assert.doesNotMatch(md, /SUSTAINED, the median of the interval rates/);
  assert.match(
    md,
    /a rate above it by more than 5% is burst: the sustained part starts where the rate falls to the ceiling/,
  );
  assert.match(md, /a transfer that never does ended inside the burst/);
  assert.match(md, /Where none is known the sustained rate is marked unconfirmed/);
});

test("JSON: the analysis in raw units", () => {
  const json = JSON.parse(renderJson(model));
  assert.equal(json.label, "emulated");
  const cell = json.cells.find(
    (c: { target: string; memoryMb: number; probe: string }) =>
      c.target === "raised-3000" && c.memoryMb === 8192 && c.probe === "iperf3",
  );
  assert.equal(cell.effective.median, medianOfRecords("raised-3000", 8192, "iperf3"));
  assert.ok(Math.abs(cell.sustained.median - (625 + (6144 / 8192) * 2375) * 0.99e6) < 1);
  assert.equal(json.curves.length, 4);
  assert.equal(json.curves[0].rateBasis, "sustained");
  assert.equal(json.baseline.name, "seed-2026");
  assert.ok(json.baselineComparison.length > 0);
});

test("compare: same targets pair by target; deltas of the medians", () => {
  const { manifest: m2, records: r2 } = fixtureStudy();
  // 10% slower throughout: whole-transfer rate and every interval's bytes (10% faster would put
  // default-625's fastest repetitions above its quota: burst, not sustained)
  const faster = r2.map((r) =>
    r.bitsPerSecond === null || r.samples === null
      ? r
      : {
          ...r,
          bitsPerSecond: r.bitsPerSecond * 0.9,
          samples: { ...r.samples, bytes: r.samples.bytes.map((b) => b * 0.9) },
        },
  );
  const comparison = compareRuns(model, buildReportModel({ ...m2, runId: "after" }, faster));
  assert.equal(comparison.pairing, "same-target");
  assert.equal(comparison.rows.length, 24);
  for (const row of comparison.rows) {
    assert.ok(
      row.deltaPercent !== null && Math.abs(row.deltaPercent + 10) < 1e-9,
      `${row.probeLabel} ${row.memoryMb}`,
    );
  }
  const text = renderComparisonText(comparison);
  assert.match(text, /A = fixture-run \(EMULATED\), B = after \(EMULATED\)/);
  assert.match(text, /-10\.0/);
});
