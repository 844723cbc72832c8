import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compareRuns,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../src/report/compare-runs.js";
import { markdownFormat } from "../../src/report/markdown-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { markdownTable, textTable } from "../../src/report/tables.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { streamsSweeps } from "../../src/results/streams-sweeps.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

/** A row's cells, split on the pipes Markdown splits on (not the escaped ones). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/);
}

/** Every table of a Markdown text: each row has as many cells as its header. */
function assertTablesHold(markdown: string): number {
  const lines = markdown.split("\n");
  let tables = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!/^\|.*\|$/.test(lines[i] as string) || !/^\| *:?-{3}/.test(lines[i + 1] ?? "")) continue;
    tables++;
    const width = cells(lines[i] as string).length;
    for (let j = i + 1; j < lines.length && (lines[j] as string).startsWith("|"); j++)
      assert.equal(
        cells(lines[j] as string).length,
        width,
        `a row of the table at line ${i + 1}: ${lines[j]}`,
      );
  }
  return tables;
}

test("the table builder keeps a | and a line break inside their cell", () => {
  const lines = markdownTable(["Name", { header: "Error", align: "right" }], [["a|b", "refused\nby | AWS"]]);
  assert.deepEqual(lines, ["| Name | Error |", "| :--- | ---: |", "| a\\|b | refused by \\| AWS |"]);
  assert.equal(assertTablesHold(lines.join("\n")), 1);
});

function sweepRecord(parallel: number, bitsPerSecond: number, target: string): ResultRecord {
  return {
    probe: "iperf3",
    parameters: { kind: "iperf3", direction: "upload", timeSeconds: 10, omitSeconds: 0, parallel },
    bitsPerSecond,
    memoryMb: 10_240,
    target,
    platform: "local",
    arch: "x86_64",
    warmup: false,
    ok: true,
  } as unknown as ResultRecord;
}

/** Every string of the model with `from` replaced by `to` (a name no schema would let in, to test the layout). */
function renamed<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T;
}

test("a cell holding | stays one cell in every Markdown table of report.md and streams.md", async () => {
  const { manifest, records } = fixtureStudy();
  const model = buildReportModel(manifest, records);
  const sweeps = streamsSweeps(
    [1, 2, 8, 16].map((p) => sweepRecord(p, Math.min(p * 600, 3_000) * 1e6, "seed-oregon-2026")),
    (record) => record.bitsPerSecond, // these records' rates stand for their sustained rates
  );
  const withPipes = renamed(
    renamed({ ...model, analysis: { ...model.analysis, streams: sweeps } }, "default-625", "default|625"),
    "seed-oregon-2026",
    "seed|oregon",
  );
  const files = await markdownFormat.render(withPipes);
  assert.deepEqual(
    files.map((file) => file.fileName),
    ["report.md", "streams.md"],
  );
  let tables = 0;
  for (const file of files) {
    const text = String(file.content);
    assert.match(text, /default\\\|625|seed\\\|oregon/, `${file.fileName} shows the name, escaped`);
    tables += assertTablesHold(text);
  }
  assert.ok(tables >= 3, `the summary, baseline and streams tables checked (${tables})`);
});

test("the text table: columns two spaces apart, right-aligned figures, a line break kept inside its row", () => {
  assert.deepEqual(
    textTable(
      ["Name", { header: "Mbit/s", align: "right" }],
      [
        ["a", "5"],
        ["long\nname", "1,234"],
      ],
    ),
    ["Name       Mbit/s", "---------  ------", "a               5", "long name   1,234"],
  );
  assert.deepEqual(textTable(["x", "y"], [["1", ""]], { rule: false }), ["x  y", "1"]);
});

test("the comparison's tables keep a line break inside its cell (text and Markdown from the one builder)", () => {
  const { manifest, records } = fixtureStudy();
  const a = renamed(buildReportModel(manifest, records), "default-625", "default|625\\nnew");
  const comparison = compareRuns(a, a);
  assert.ok(comparison.rows.length > 0);
  const markdown = renderComparisonMarkdown(comparison);
  assert.match(markdown, /default\\\|625 new/);
  assert.equal(assertTablesHold(markdown), 1);
  const text = renderComparisonText(comparison).split("\n");
  const [header = "", rule = ""] = text.slice(2);
  assert.match(rule, /^-+ {2}-/);
  assert.ok(text.slice(4, -1).every((line) => line.length <= header.length + 20 && !/^ /.test(line)));
  assert.equal(text.slice(4, -1).length, comparison.rows.length, "one line per row");
});
