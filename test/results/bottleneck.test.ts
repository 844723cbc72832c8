import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Cell, probeParameters } from "../../src/plan/cell.js";
import { type LabProfileInput, labProfileSchema } from "../../src/plan/lab-profile.js";
import type { PlanInput } from "../../src/plan/plan-schema.js";
import { renderJson } from "../../src/report/json-format.js";
import { renderMarkdown } from "../../src/report/markdown-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { renderTerminal } from "../../src/report/terminal-format.js";
import { analyzeRun, type CellStatistics } from "../../src/results/analysis.js";
import { nameBottleneck } from "../../src/results/bottleneck.js";
import type { RunManifest } from "../../src/results/manifest.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";

/**
 * Cells built to be each kind of bottleneck, on fixed records: a plain quota, a per-flow cap with
 * one stream (from the run's streams sweep), a CPU share too small for the link, a saturated
 * server, and one where nothing explains the rate.
 */
const SECONDS = 4;

/** A lab profile with a 600 Mbit/s payload link each way; the test changes one field per case. */
function profile(name: string, fields: Partial<LabProfileInput> = {}): LabProfileInput {
  return {
    name,
    download: [{ memoryMb: 128, megabitsPerSecond: 600 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 600 }],
    payload: true,
    ...fields,
  };
}

function labRun(profiles: LabProfileInput[], probes: PlanInput["probes"], memoryMb = [1024]): RunManifest {
  const manifest = fixtureManifest({
    name: "bottleneck-fixture",
    targets: profiles.map((p) => ({ platform: "local" as const, profile: p.name })),
    profiles,
    memoryMb,
    repetitions: 3,
    probes,
  });
  // the lab records the profile it ran with in the run facts, as LocalPlatform.facts() does
  for (const p of profiles) {
    const facts = manifest.platforms[`local:${p.name}`];
    assert.ok(facts);
    facts.details = { profile: labProfileSchema.parse(p), hostCores: 2 };
    facts.quotaBitsPerSecond = 600e6;
  }
  return manifest;
}

/** Three repetitions of a cell at a flat rate, the client's CPU at `cpuCores`. */
function records(
  cell: Cell,
  bitsPerSecond: number,
  extra: { cpuCores?: number; serverCores?: number } = {},
): ResultRecord[] {
  return [1, 2, 3].map((repetition) => ({
    ...fixtureRecord(cell, repetition, {
      bitsPerSecond: bitsPerSecond * (1 + (repetition - 2) * 0.01),
      seconds: SECONDS,
      cpuSeconds: (extra.cpuCores ?? 0.05) * SECONDS,
    }),
    parameters: probeParameters(cell.probe),
    ...(extra.serverCores !== undefined
      ? {
          serverCpu: {
            server: "iperf3 server :5201 (ours)",
            seconds: extra.serverCores * SECONDS,
            wallSeconds: SECONDS + 0.5,
            capacityCores: 1,
          },
        }
      : {}),
  }));
}

function only(cells: CellStatistics[], target: string, streams?: number): CellStatistics {
  const found = cells.filter(
    (c) => c.target === target && (streams === undefined || c.probeLabel.includes(`-P ${streams} `)),
  );
  assert.equal(found.length, 1, `one cell of ${target}${streams ? ` at -P ${streams}` : ""}`);
  return found[0] as CellStatistics;
}

describe("the bottleneck of each cell, named from its own figures", () => {
  test("a plain quota: sustained at the profile's curve is quota-bound, with the curve as evidence", () => {
    const manifest = labRun([profile("quota-600")], [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 4 }]);
    const cell = manifest.cells[0] as Cell;
    const [stats] = analyzeRun(manifest, records(cell, 590e6)).cells;
    assert.equal(stats?.bottleneck.kind, "quota");
    assert.match(
      stats?.bottleneck.evidence ?? "",
      /sustained 590 Mbit\/s is 98% of the 600 Mbit\/s in force/,
    );
    assert.match(stats?.bottleneck.evidence ?? "", /lab profile quota-600: its upload curve at 1,024 MB/);
  });

  test("a per-flow cap with one stream: the streams sweep's fit explains it (flow), the widest count is quota", () => {
    const manifest = labRun(
      [profile("flow-40")],
      [{ kind: "iperf3", timeSeconds: SECONDS, parallel: [1, 2, 4, 16] }],
    );
    const rates: Record<number, number> = { 1: 38e6, 2: 76e6, 4: 152e6, 16: 590e6 };
    const all = manifest.cells.flatMap((cell) =>
      records(cell, rates[(cell.probe as { parallel: number }).parallel] as number),
    );
    const { cells } = analyzeRun(manifest, all);
    const one = only(cells, "flow-40", 1);
    assert.equal(one.bottleneck.kind, "flow", one.bottleneck.evidence);
    assert.match(one.bottleneck.evidence, /1 stream x the 38 Mbit\/s per-flow cap = 38 Mbit\/s/);
    assert.match(
      one.bottleneck.evidence,
      /fitted on the sustained rates of this run's streams sweep at 1, 2, 4 stream/,
    );
    assert.equal(only(cells, "flow-40", 16).bottleneck.kind, "quota");
  });

  test("a per-flow cap the lab profile states explains a single stream without a sweep", () => {
    const manifest = labRun(
      [profile("flow-profile", { flowMegabitsPerSecond: 40 })],
      [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 1 }],
    );
    const cell = manifest.cells[0] as Cell;
    const [stats] = analyzeRun(manifest, records(cell, 37e6)).cells;
    assert.equal(stats?.bottleneck.kind, "flow", stats?.bottleneck.evidence);
    assert.match(stats?.bottleneck.evidence ?? "", /lab profile flow-profile's per-connection cap/);
  });

  test("a CPU share too small for the link: the client at its share is CPU-bound", () => {
    // 1,024 MB at 20,480 MB per vCPU: 0.05 cores for a 600 Mbit/s link
    const manifest = labRun(
      [profile("tiny-cpu", { mbPerVcpu: 20_480 })],
      [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 4 }],
    );
    const cell = manifest.cells[0] as Cell;
    const [stats] = analyzeRun(manifest, records(cell, 150e6, { cpuCores: 0.049 })).cells;
    assert.equal(stats?.cpuBound, true);
    assert.equal(stats?.bottleneck.kind, "cpu", stats?.bottleneck.evidence);
    assert.match(
      stats?.bottleneck.evidence ?? "",
      /the client used 0\.049 of its 0\.050 cores of CPU share \(98%\)/,
    );
    assert.match(stats?.bottleneck.evidence ?? "", /25% of the 600 Mbit\/s quota/);
  });

  test("the same CPU figures at the quota are the quota's: the link is what stops it", () => {
    const manifest = labRun(
      [profile("tiny-cpu", { mbPerVcpu: 20_480 })],
      [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 4 }],
    );
    const cell = manifest.cells[0] as Cell;
    const [stats] = analyzeRun(manifest, records(cell, 595e6, { cpuCores: 0.049 })).cells;
    assert.equal(stats?.bottleneck.kind, "quota");
  });

  test("a saturated server: the lab's server CPU at its one core is server-bound", () => {
    const manifest = labRun(
      [profile("busy-server")],
      [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 4 }],
    );
    const cell = manifest.cells[0] as Cell;
    const [stats] = analyzeRun(manifest, records(cell, 300e6, { serverCores: 0.97 })).cells;
    assert.equal(stats?.bottleneck.kind, "server", stats?.bottleneck.evidence);
    assert.match(
      stats?.bottleneck.evidence ?? "",
      /the iperf3 server :5201 \(ours\) used 0\.97 of the 1\.00 cores/,
    );
  });

  test("nothing explains it: undetermined, saying what was checked", () => {
    const manifest = labRun([profile("unknown")], [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 4 }]);
    const cell = manifest.cells[0] as Cell;
    const [stats] = analyzeRun(manifest, records(cell, 300e6, { serverCores: 0.3 })).cells;
    assert.equal(stats?.bottleneck.kind, "undetermined");
    assert.match(stats?.bottleneck.evidence ?? "", /50% of the 600 Mbit\/s quota/);
    assert.match(stats?.bottleneck.evidence ?? "", /server :5201 \(ours\) CPU 0\.30 of 1\.00 cores/);
  });

  test("on AWS the server's CPU is out of sight: the evidence says what would show it", () => {
    const verdict = nameBottleneck({
      platform: "aws",
      sustainedBitsPerSecond: 300e6,
      sustainedMissing: null,
      quota: { bitsPerSecond: 600e6, basis: "the account's quota in us-west-2" },
      streams: 4,
      flowCap: null,
      cpu: { usedCores: 0.1, shareCores: 0.58 },
      server: null,
    });
    assert.equal(verdict.kind, "undetermined");
    assert.match(verdict.evidence, /EC2 instance/);
    assert.match(verdict.evidence, /SlowDown/);
  });

  test("no sustained rate: undetermined, saying why (a transfer that ended inside its burst)", () => {
    const inside =
      "ended inside the burst: 212 MB above the 598 Mbit/s ceiling in 4.1 s; a longer transfer (or more connections, which drain the burst sooner) would reach the sustained rate";
    const verdict = nameBottleneck({
      platform: "local",
      sustainedBitsPerSecond: null,
      sustainedMissing: inside,
      quota: null,
      streams: null,
      flowCap: null,
      cpu: null,
      server: null,
    });
    assert.equal(verdict.kind, "undetermined");
    assert.equal(verdict.evidence, `no sustained rate to explain: ${inside}`);
  });

  test("the reports carry it: report.json per cell, a sentence in Markdown, a mark in the terminal table", () => {
    const manifest = labRun(
      [profile("tiny-cpu", { mbPerVcpu: 20_480 })],
      [{ kind: "iperf3", timeSeconds: SECONDS, parallel: 4 }],
    );
    const cell = manifest.cells[0] as Cell;
    const model = buildReportModel(manifest, records(cell, 150e6, { cpuCores: 0.049 }), undefined, null);
    const json = JSON.parse(renderJson(model)) as {
      cells: Array<{ bottleneck: { kind: string; evidence: string } }>;
    };
    assert.equal(json.cells[0]?.bottleneck.kind, "cpu");
    assert.match(json.cells[0]?.bottleneck.evidence ?? "", /cores of CPU share/);
    const markdown = renderMarkdown(model);
    assert.match(markdown, /## What limits each cell/);
    assert.match(markdown, /tiny-cpu arm64 iperf3 upload -P 4 -t 4s at 1,024 MB: CPU-bound: the client used/);
    // the compact console summary marks the cell; the wide table names the limit in its own column
    assert.match(renderTerminal(model), /c +CPU-bound/);
    const terminal = renderTerminal(model, { wide: true }).split("\n");
    const header = terminal.find((line) => line.includes("Limit")) ?? "";
    const row = terminal.find((line) => line.startsWith("tiny-cpu")) ?? "";
    assert.ok(header.length > 0, "a Limit column");
    assert.equal(row.slice(header.indexOf("Limit")).split(/\s+/)[0], "CPU");
  });
});
