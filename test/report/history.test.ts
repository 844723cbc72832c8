import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { renderSvg } from "../../src/report/charts/render-chart.js";
import { buildHistory, historyChart, renderHistoryText } from "../../src/report/history.js";
import type { RunManifest } from "../../src/results/manifest.js";
import { writeManifest } from "../../src/results/run-directory.js";
import { cliArgv } from "../helpers/cli-process.js";
import { fixtureFailure, fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * Three daily runs: 1,024 MB sustains 600 Mbit/s after a 2,000 Mbit/s burst, then the quota is
 * raised and the last run sustains 1,200; 2,048 MB sustains 600 throughout. Hand-computed:
 * each point is the median of the run's repetitions; failures and warm-ups are left out.
 */
const planInput = {
  name: "daily",
  targets: [{ platform: "aws" as const, region: "us-west-2" }],
  memoryMb: [1024, 2048],
  repetitions: 2,
  probes: [{ kind: "iperf3" as const, timeSeconds: 10, parallel: 4 }],
};
const cells = expandPlan(validatePlan(planInput));
const days = ["2026-11-28", "2026-11-29", "2026-11-30"];
let parent: string;

function run(day: string, index: number) {
  const manifest: RunManifest = {
    ...fixtureManifest(planInput),
    runId: `${day}T06-00-00Z-daily`,
    createdAt: `${day}T06:00:00.000Z`,
    completedAt: `${day}T06:10:00.000Z`,
  };
  const records = cells.flatMap((cell) => {
    const sustained = cell.memoryMb === 1024 && index === 2 ? 1_200e6 : 600e6;
    const repetitions = [1, 2].map((repetition) => ({
      ...fixtureRecord(cell, repetition, {
        bitsPerSecond: sustained,
        seconds: 10,
        burstFactor: 2_000e6 / sustained,
      }),
      runId: manifest.runId,
    }));
    // a failed third repetition never moves the median
    return [...repetitions, { ...fixtureFailure(cell, 3, "timeout"), runId: manifest.runId }];
  });
  return { manifest, records };
}

before(async () => {
  parent = await mkdtemp(join(tmpdir(), "lnb-history-"));
  for (const [index, day] of days.entries()) {
    const { manifest, records } = run(day, index);
    const dir = join(parent, manifest.runId);
    await mkdir(dir);
    await writeManifest(dir, manifest);
    await writeFile(join(dir, "results.jsonl"), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  }
});
after(async () => {
  await rm(parent, { recursive: true, force: true });
});

test("history: sustained and burst per memory size, one point per run", () => {
  const series = buildHistory(days.map((day, index) => run(day, index)).reverse());
  assert.equal(series.length, 1);
  const entry = series[0];
  assert.ok(entry);
  assert.deepEqual(entry.memorySizes, [1024, 2048]);
  assert.deepEqual(
    entry.runs.map((r) => r.time),
    days.map((d) => `${d}T06:00:00.000Z`),
    "in time order",
  );
  const at = (memoryMb: number, kind: string, day: string) =>
    entry.points.find((p) => p.memoryMb === memoryMb && p.kind === kind && p.time.startsWith(day));
  assert.equal(at(1024, "sustained", "2026-11-28")?.bitsPerSecond, 600e6);
  assert.equal(at(1024, "sustained", "2026-11-30")?.bitsPerSecond, 1_200e6);
  assert.equal(at(2048, "sustained", "2026-11-30")?.bitsPerSecond, 600e6);
  assert.equal(Math.round((at(1024, "burst", "2026-11-29")?.bitsPerSecond ?? 0) / 1e6), 2_000);
  assert.equal(at(1024, "sustained", "2026-11-29")?.n, 2, "two successful repetitions");
  const text = renderHistoryText(series);
  assert.match(text, /us-west-2 — iperf3 upload -P 4 -t 10s: sustained \/ burst, Mbit\/s/);
  assert.match(text, /2026-11-30T06:00:00Z +1,200 \/ 2,000 +600 \/ 2,000/);
});

test("history chart renders to SVG", async () => {
  const [entry] = buildHistory(days.map((day, index) => run(day, index)));
  assert.ok(entry);
  const svg = await renderSvg(historyChart(entry));
  assert.match(svg, /^<svg/);
  assert.match(svg, /1024 MB/);
});

test("report --history DIR reads a directory of runs (runs/ after runs pull)", () => {
  const result = spawnSync(
    process.execPath,
    cliArgv(["report", "--history", parent, "--format", "text,svg", "--out", parent]),
    { encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /2026-11-28T06:00:00Z +600 \/ 2,000 +600 \/ 2,000/);
  const svgPath = result.stdout.split("\n").find((line) => line.endsWith(".svg"));
  assert.ok(svgPath && readFileSync(svgPath, "utf8").startsWith("<svg"));
  const bad = spawnSync(process.execPath, cliArgv(["report", "--history", parent, "--format", "pdf"]), {
    encoding: "utf8",
  });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--format: unknown pdf \(allowed: text, svg, png, html\)/);
});
