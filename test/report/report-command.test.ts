import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { reportCommand } from "../../src/cli/commands/report.js";
import { writeManifest } from "../../src/results/run-directory.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

let runDir: string;
before(async () => {
  runDir = await mkdtemp(join(tmpdir(), "lnbr-report-cmd-"));
  const { manifest, records } = fixtureStudy();
  await writeManifest(runDir, manifest);
  await writeFile(join(runDir, "results.jsonl"), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
});
after(async () => {
  await rm(runDir, { recursive: true, force: true });
});

test("report --format writes each format's files; PNG charts are real PNGs", {
  timeout: 120_000,
}, async () => {
  assert.equal(await reportCommand(runDir, { format: ["md,csv", "json", "png"] }), 0);
  assert.match(
    await readFile(join(runDir, "report.md"), "utf8"),
    /^# lambda-netbench run fixture-run \(emulated\)/,
  );
  assert.ok((await readFile(join(runDir, "summary.csv"), "utf8")).startsWith("Results,Target,"));
  JSON.parse(await readFile(join(runDir, "report.json"), "utf8"));
  const png = await readFile(join(runDir, "charts", "throughput-vs-memory-raised-3000.png"));
  assert.deepEqual([...png.subarray(1, 4)].map((b) => String.fromCharCode(b)).join(""), "PNG");
  assert.ok((await stat(join(runDir, "charts", "time-series-default-625.png"))).size > 10_000);
  assert.equal(await reportCommand(runDir, { format: ["pdf"] }), 2, "unknown format refused");
});

test("compare through the CLI prints both runs and the deltas", async () => {
  // a child process: capturing this process's stdout would swallow the test reporter's output
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "test/helpers/run-cli-loopback.ts", "compare", runDir, runDir, "--format", "md"],
    { encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^# Comparison\n/);
  assert.match(
    result.stdout,
    /\| raised-3000 \| raised-3000 \| iperf3 upload -P 4 -t 4s \| arm64 \| 10,240 \| 2,970 \| 3 \| 2,970 \| 3 \| 0 \| 0\.0 \|/,
  );
});
