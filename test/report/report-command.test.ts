import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { reportCommand } from "../../src/cli/commands/report.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { writeManifest } from "../../src/results/run-directory.js";
import { cliArgv } from "../helpers/cli-process.js";
import { fixtureManifest, fixtureRecord } from "../helpers/fixture-run.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

const execFileAsync = promisify(execFile);

function linesWiderThan(text: string, width: number): string[] {
  return text.split("\n").filter((line) => line.length > width);
}

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
  assert.match(
    await readFile(join(runDir, "report.md"), "utf8"),
    /## Beside the published study \(seed-2026\)/,
  );
  assert.equal(await reportCommand(runDir, { format: ["md"], baseline: "none" }), 0);
  assert.doesNotMatch(await readFile(join(runDir, "report.md"), "utf8"), /Beside the published study/);
  assert.equal(
    await reportCommand(runDir, { format: ["md"], baseline: "seed-1999" }),
    2,
    "unknown baseline refused",
  );
});

test("compare through the CLI prints both runs and the deltas", async () => {
  // a child process: capturing this process's stdout would swallow the test reporter's output
  const result = spawnSync(
    process.execPath,
    cliArgv(["compare", runDir, runDir, "--format", "md"], "run-cli-loopback"),
    { encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^# Comparison\n/);
  assert.match(
    result.stdout,
    /\| raised-3000 \| raised-3000 \| iperf3 upload -P 4 -t 4s \| arm64 \| 10,240 \| 2,970 \| 3 \| 2,970 \| 2,970 \| 3 \| 2,970 \| 0 \| 0\.0 \|/,
  );
});

test("compare RUN --baseline seed-2026: the seed's seconds per object beside ours, like for like", async () => {
  // an Oregon run of the study's S3 download: 1 GiB at concurrency 10, whole download 13.0 s at
  // 1,024 MB and 3.0 s at 10,240 MB (the study: 13.36 s and 2.89 s)
  const dir = await mkdtemp(join(tmpdir(), "lnbr-baseline-cmd-"));
  try {
    const manifest = fixtureManifest({
      name: "oregon",
      targets: [{ platform: "aws", region: "us-west-2" }],
      memoryMb: [1024, 10240],
      repetitions: 1,
      probes: [{ kind: "s3-get", objectMib: 1024, concurrency: 10, chunkMib: 16 }],
    });
    const records = manifest.cells.map((cell) => {
      const whole = cell.memoryMb === 1024 ? 13.0 : 3.0;
      const rate = (1073741824 * 8) / (whole - 0.5);
      return {
        ...fixtureRecord(cell, 1, { bitsPerSecond: rate, seconds: whole - 0.5 }),
        wholeSeconds: whole,
      };
    });
    await writeManifest(dir, manifest);
    await writeFile(join(dir, "results.jsonl"), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, cliArgv(["compare", ...args], "run-cli-loopback"), {
        encoding: "utf8",
      });
    const result = run(dir, "--baseline", "seed-2026", "--format", "md");
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^# Beside the published study\n/);
    // (13.0 - 13.36) / 13.36 = -2.7%; (3.0 - 2.89) / 2.89 = +3.8%
    assert.match(
      result.stdout,
      /\| us-west-2 \| Oregon \(us-west-2, quota 3,000\) \| s3-get 1024 MiB conc 10 chunk 16 MiB \| 1,024 \|.*\| 12\.50 \/ 13\.00 \| – \| 13\.36 \| -2\.7% \(whole seconds per object\) \|/,
    );
    assert.match(
      result.stdout,
      /\| 10,240 \|.*\| 2\.50 \/ 3\.00 \| 2,976 \| 2\.89 \| \+3\.8% \(whole seconds per object\) \|/,
    );
    const refused = run(dir, "--baseline", "seed-1999");
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--baseline: unknown baseline "seed-1999" \(allowed: seed-2026\)/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A run directory whose iperf3 upload swept 1, 2, 8 and 16 streams (a per-flow cap of 600 Mbit/s under a 3,000 quota). */
async function streamsRunDir(dir: string): Promise<void> {
  const manifest = fixtureManifest({
    name: "streams",
    targets: [{ platform: "local", profile: "seed-oregon-2026" }],
    memoryMb: [10_240],
    repetitions: 1,
    probes: [{ kind: "iperf3", timeSeconds: 4, parallel: [1, 2, 8, 16], direction: "upload" }],
  });
  const records: ResultRecord[] = manifest.cells.map((cell) => {
    const parallel = (cell.probe as { parallel: number }).parallel;
    return {
      ...fixtureRecord(cell, 1, { bitsPerSecond: Math.min(parallel * 600, 3_000) * 1e6 }),
      // as the runner records them: the cell's probe parameters (the sweep's axis among them)
      parameters: { ...cell.probe },
    };
  });
  await writeManifest(dir, manifest);
  await writeFile(join(dir, "results.jsonl"), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

test("report RUN_DIR writes what run writes (streams.md for a streams sweep) and prints within 80 columns", async () => {
  const dir = await mkdtemp(join(tmpdir(), "lnbr-report-all-"));
  try {
    await streamsRunDir(dir);
    // a child process: its stdout is not a terminal, so the console text is laid out for COLUMNS
    const { stdout } = await execFileAsync(process.execPath, cliArgv(["report", dir]), {
      env: { ...process.env, COLUMNS: "80" },
    });
    assert.deepEqual(linesWiderThan(stdout, 80), []);
    assert.match(stdout, /Streams sweeps \(sustained aggregate Mbit\/s by stream count/);
    const files = (await readdir(dir)).sort();
    for (const name of ["report.html", "report.json", "report.md", "streams.md", "summary.csv"])
      assert.ok(files.includes(name), `${name} written (got ${files.join(", ")})`);
    assert.match(stdout, /\nReport: report\.html, report\.md, streams\.md, summary\.csv, report\.json\n$/);
    assert.match(
      await readFile(join(dir, "streams.md"), "utf8"),
      /\| seed-oregon-2026 arm64 10,240 MB iperf3 upload -t 4s \| 1: 600, 2: 1,200, 8: 3,000, 16: 3,000 \|/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("report RUN_DIR on a real bucket run prints the bucket section within 80 columns and writes into --out", async () => {
  const out = await mkdtemp(join(tmpdir(), "lnbr-report-bucket-"));
  try {
    const dir = join(out, "run");
    await cp("test/fixtures/bucket-run", dir, { recursive: true });
    const { stdout } = await execFileAsync(
      process.execPath,
      cliArgv(["report", dir, "--out", join(out, "files")]),
      { env: { ...process.env, COLUMNS: "80" } },
    );
    assert.deepEqual(linesWiderThan(stdout, 80), []);
    assert.match(stdout, /Token bucket \(each repetition fitted; median \[min-max\]\)/);
    assert.match(await readFile(join(out, "files", "report.md"), "utf8"), /## Token bucket/);
    assert.deepEqual(
      (await readdir(dir)).sort(),
      ["manifest.json", "results.jsonl"],
      "the run directory untouched",
    );
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
