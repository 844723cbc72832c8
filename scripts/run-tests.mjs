// Runs the test files with node's built-in runner, compiled to JavaScript first
// (scripts/compiled-tests.mjs):
//   node scripts/run-tests.mjs                      every tier (`npm test`)
//   node scripts/run-tests.mjs --tier unit          one tier (`npm run test:unit`); a comma list for several
//   node scripts/run-tests.mjs FRAGMENT ...         the files whose path contains a fragment
//   node scripts/run-tests.mjs --changed [--base REF]  the test files a change touches (`npm run test:changed`):
//       changed since the branch left REF (default main), staged, modified or untracked, and the
//       tests that import a changed file directly or through others (scripts/changed-tests.mjs)
// Tiers come from test/tiers.json (docs/testing.md). Two lanes run side by side:
// - the measuring lane: the timing-sensitive files (listed "alone" or "paired"), one `node --test`
//   each: the "alone" files first, none beside another, then the "paired" ones (little CPU) in
//   the manifest's order (longest first) in three slots, the next starting as soon as a slot is free;
// - the shared lane: every other file, tier by tier (unit files several at once under a guard that
//   fails any test starting a process or opening a socket), at the lowest CPU priority (nice 19),
//   so it only takes CPU time a measurement leaves idle.
// Files listed "emulated" (the stock-kernel VM) run in a third lane from the start, beside both.
// Files listed "background" (long and light: a plan's transfers at 1/8, mostly waiting) run in a
// fourth lane from the start at nice 19, where in the shared lane they would start last.
// Files listed "quiet" run last, one at a time, once the lanes are done: nothing runs beside them.
// A run with timing-sensitive files holds the machine-wide bench lock, so a benchmark elsewhere
// cannot overlap it and those files find the lock already theirs; a run without any takes no lock. No single test may run past 15 minutes:
// a hang fails loudly instead of stalling CI.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { changedFiles, readSources, testsAffectedBy } from "./changed-tests.mjs";
import { compiledPath, compileTests, sourcePath } from "./compiled-tests.mjs";
import { tapCounts, tapFailures } from "./tap-results.mjs";
import {
  findTestFiles,
  loadManifest,
  MANIFEST,
  manifestProblems,
  TIER_NAMES,
  tierOf,
  timingOf,
} from "./test-tiers.mjs";

/** Files of a tier's shared part at once, measured on the 2-core build machine (docs/testing.md). */
const SHARED_CONCURRENCY = { unit: 4, integration: 2, lab: 2, e2e: 2, vm: 1 };
/**
 * "paired" measuring files at once. Three since 2026-12-06: they wait on scaled transfers (0.57
 * core on average for two), and the lane was the whole run's critical path on a quiet host (927 s
 * of 979), ~880 s of it paired files packed in two slots.
 */
const PAIRED_CONCURRENCY = 3;
const SHARED_NICENESS = 19;
const UNIT_GUARD = "test/helpers/unit-guard.ts";
const FILE_TIMES_REPORTER = "./scripts/file-times-reporter.mjs";
/** The lock test/helpers/bench-lock.ts takes; how long the run waits for it before going on without. */
const BENCH_LOCK = "/tmp/lnb-bench.lock";
const LOCK_WAIT_SECONDS = 900;
const LOCK_CONFLICT_STATUS = 75;

function parseArguments(argv) {
  const tiers = [];
  const fragments = [];
  let changed = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tier") tiers.push(...(argv[++i] ?? "").split(","));
    else if (argv[i] === "--changed") changed ??= "main";
    else if (argv[i] === "--base") changed = argv[++i] ?? "main";
    else fragments.push(argv[i]);
  }
  const unknown = tiers.filter((tier) => !TIER_NAMES.includes(tier));
  if (unknown.length > 0) {
    console.error(`unknown tier ${unknown.join(", ")}: the tiers are ${TIER_NAMES.join(", ")}`);
    process.exit(2);
  }
  return { tiers: tiers.length > 0 ? tiers : TIER_NAMES, fragments, changed };
}

/** Copies a child's output line by line with a prefix naming its lane and tier. */
function relay(stream, prefix, sink) {
  createInterface({ input: stream }).on("line", (line) => sink.write(`${prefix}${line}\n`));
}

/** How a batch's files load: compiled, from the run's mirror (scripts/compiled-tests.mjs). */
function loading(batch, mirror) {
  const guard = batch.tier === "unit" ? ["--import", `./${compiledPath(mirror, UNIT_GUARD)}`] : [];
  return {
    imports: ["--enable-source-maps", ...guard],
    files: batch.files.map((file) => compiledPath(mirror, file)),
  };
}

/** One `node --test` over a batch; resolves with its counts, exit status and times. */
function runBatch(batch, scratch, index, prefixed, mirror) {
  const tap = join(scratch, `${batch.lane}-${index}.tap`);
  const times = join(scratch, `${batch.lane}-${index}.times`);
  const { imports, files } = loading(batch, mirror);
  const nodeArgs = [
    ...imports,
    "--test",
    `--test-concurrency=${batch.concurrency}`,
    "--test-timeout=900000",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    `--test-reporter=${FILE_TIMES_REPORTER}`,
    `--test-reporter-destination=${times}`,
    ...files,
  ];
  const niced = batch.nice ? ["nice", "-n", String(SHARED_NICENESS)] : [];
  const cpu = join(scratch, `${batch.lane}-${index}.cpu`);
  // bash's `times` after the batch: the CPU seconds of its whole process tree (every descendant
  // waited for), which is what a busy loop beside the run competes with
  const args = [
    "-c",
    'exec 3>"$0"; "$@"; status=$?; times >&3; exit $status',
    cpu,
    ...niced,
    process.execPath,
    ...nodeArgs,
  ];
  const startedMs = Date.now();
  return new Promise((resolve) => {
    const child = spawn("bash", args, {
      stdio: ["ignore", prefixed ? "pipe" : "inherit", prefixed ? "pipe" : "inherit"],
    });
    if (prefixed) {
      const prefix = `[${batch.lane} ${batch.tier}] `;
      relay(child.stdout, prefix, process.stdout);
      relay(child.stderr, prefix, process.stderr);
    }
    // 'close', not 'exit': the child's last lines are through the relay before its counts are read
    child.once("close", (code, signal) => {
      let counts = { tests: 0, passed: 0, failed: 0, skipped: 0 };
      let failures = [];
      let fileSeconds = [];
      const cpuSeconds = readChildCpuSeconds(cpu);
      try {
        const text = readFileSync(tap, "utf8");
        counts = tapCounts(text);
        failures = tapFailures(text).map((f) => ({
          ...f,
          location: sourcePath(f.location),
          error: sourcePath(f.error),
        }));
        fileSeconds = readFileTimes(times);
      } catch {
        // no TAP file: the runner itself died; the status says so below
      }
      resolve({
        ...batch,
        ...counts,
        failures,
        fileSeconds,
        cpuSeconds,
        code,
        signal,
        ok: code === 0 && signal === null,
        startedMs,
        endedMs: Date.now(),
      });
    });
  });
}

/** User plus system seconds of the children in bash's `times` ("0m1.2s 0m0.3s" twice: itself, then children); 0 when absent. */
function readChildCpuSeconds(path) {
  try {
    const children = readFileSync(path, "utf8").trim().split("\n")[1] ?? "";
    return children
      .split(" ")
      .map((field) => /^(\d+)m([\d.]+)s$/.exec(field))
      .reduce((total, m) => total + (m ? Number(m[1]) * 60 + Number(m[2]) : 0), 0);
  } catch {
    return 0;
  }
}

/** What file-times-reporter.mjs wrote: each file's seconds in its tests, paths relative to the checkout. */
function readFileTimes(path) {
  const root = `${process.cwd()}/`;
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))
    .map(({ file, seconds }) => ({
      file: sourcePath(file.startsWith(root) ? file.slice(root.length) : file),
      seconds,
    }));
}

/** The batches of each lane, in tier order. */
function laneBatches(plan, manifest) {
  const measuring = [];
  const shared = [];
  const quiet = [];
  const emulated = [];
  const background = [];
  for (const { tier, files } of plan) {
    const of = (timing) => files.filter((file) => timingOf(file, manifest) === timing);
    const rest = of(null);
    if (rest.length > 0)
      shared.push({ lane: "shared", tier, files: rest, concurrency: SHARED_CONCURRENCY[tier], nice: true });
    for (const file of of("alone"))
      measuring.push({ lane: "measuring", tier, files: [file], concurrency: 1, nice: false, alone: true });
    for (const file of of("paired"))
      measuring.push({ lane: "measuring", tier, files: [file], concurrency: 1, nice: false, alone: false });
    for (const file of of("quiet"))
      quiet.push({ lane: "quiet", tier, files: [file], concurrency: 1, nice: false });
    for (const file of of("emulated"))
      emulated.push({ lane: "emulated", tier, files: [file], concurrency: 1, nice: false });
    for (const file of of("background"))
      background.push({ lane: "background", tier, files: [file], concurrency: 1, nice: true });
  }
  return { measuring: alonesThenLongestPaired(measuring, manifest), shared, quiet, emulated, background };
}

/**
 * The alone files first (each needs the machine, and they are short), then the paired ones in
 * the order test/tiers.json lists them, longest first: the slots end together instead of one long
 * file starting last (ci1 2026-12-04: the lane ran 994 s where its files packed into 935).
 */
function alonesThenLongestPaired(measuring, manifest) {
  const listed = (batch) => manifest.paired.findIndex((entry) => batch.files[0].startsWith(entry));
  const paired = measuring.filter((b) => !b.alone).sort((a, b) => listed(a) - listed(b));
  return [...measuring.filter((b) => b.alone), ...paired];
}

async function runLane(batches, scratch, prefixed, mirror) {
  const results = [];
  for (const [index, batch] of batches.entries())
    results.push(await runBatch(batch, scratch, index, prefixed, mirror));
  return results;
}

/**
 * The measuring lane: its one-file batches in order, PAIRED_CONCURRENCY paired files at once, an
 * alone file only once every slot is free and nothing beside it until it ends. A paired file
 * starts as soon as a slot frees, in whichever tier: one long file no longer leaves a slot idle
 * until its tier ends.
 */
async function runMeasuringLane(batches, scratch, prefixed, mirror) {
  const results = [];
  const running = new Set();
  for (const [index, batch] of batches.entries()) {
    while (running.size > 0 && (batch.alone || running.size >= PAIRED_CONCURRENCY))
      await Promise.race(running);
    const run = runBatch(batch, scratch, index, prefixed, mirror).then((result) => {
      results.push(result);
      running.delete(run);
    });
    running.add(run);
    if (batch.alone) await run;
  }
  await Promise.all(running);
  return results;
}

/** Per tier: files, counts and the seconds from its first batch's start to its last one's end. */
function tierSummaries(plan, results) {
  return plan.map(({ tier, files }) => {
    const mine = results.filter((r) => r.tier === tier);
    const sum = (key) => mine.reduce((total, r) => total + r[key], 0);
    const seconds =
      (Math.max(...mine.map((r) => r.endedMs)) - Math.min(...mine.map((r) => r.startedMs))) / 1000;
    return {
      tier,
      files: files.length,
      tests: sum("tests"),
      passed: sum("passed"),
      failed: sum("failed"),
      skipped: sum("skipped"),
      seconds,
      ok: mine.every((r) => r.ok),
    };
  });
}

function printSummary(summaries, lanes, wholeSeconds) {
  console.log("\ntier         files  tests  passed  failed  skipped  seconds");
  for (const r of summaries) {
    const cells = [r.files, r.tests, r.passed, r.failed, r.skipped, r.seconds.toFixed(0)];
    console.log(
      `${r.tier.padEnd(11)} ${cells.map((c, i) => String(c).padStart([6, 6, 7, 7, 8, 8][i])).join(" ")}`,
    );
  }
  for (const [lane, results] of Object.entries(lanes)) {
    if (results.length === 0) continue;
    // from its first file's start to its last one's end: measuring files overlap, two at a time
    const busy =
      (Math.max(...results.map((r) => r.endedMs)) - Math.min(...results.map((r) => r.startedMs))) / 1000;
    const cpuSeconds = results.reduce((total, r) => total + r.cpuSeconds, 0);
    console.log(
      `${lane} lane: ${results.reduce((n, r) => n + r.files.length, 0)} files, ${busy.toFixed(0)} s, ${cpuSeconds.toFixed(0)} CPU-s`,
    );
  }
  console.log(`whole run: ${wholeSeconds.toFixed(0)} s`);
  printSlowest(Object.values(lanes).flat());
  printSlowestShared(lanes.shared ?? []);
  printFailures(Object.values(lanes).flat());
  const sum = (key) => summaries.reduce((total, r) => total + r[key], 0);
  // the plain closing line CI reads, over every tier
  console.log(`tests: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped`);
}

const SLOWEST_SHOWN = 10;

/** The one-file batches (measuring, emulated, quiet) that took longest: where a faster suite starts. */
function printSlowest(results) {
  const single = results
    .filter((r) => r.files.length === 1)
    .map((r) => ({
      file: r.files[0],
      lane: r.lane,
      seconds: (r.endedMs - r.startedMs) / 1000,
      cpuSeconds: r.cpuSeconds,
    }))
    .sort((a, b) => b.seconds - a.seconds);
  if (single.length === 0) return;
  console.log(
    `\nslowest of the ${single.length} files run one to a process (wall, then CPU of its processes):`,
  );
  for (const f of single.slice(0, SLOWEST_SHOWN))
    console.log(
      `  ${f.seconds.toFixed(0).padStart(5)} s ${f.cpuSeconds.toFixed(0).padStart(5)} CPU-s  ${f.lane.padEnd(9)} ${f.file}`,
    );
}

/** The shared lane's slowest files, by the seconds their tests took (several run at once). */
function printSlowestShared(results) {
  const files = results
    .flatMap((r) => r.fileSeconds.map((f) => ({ ...f, tier: r.tier })))
    .sort((a, b) => b.seconds - a.seconds);
  if (files.length === 0) return;
  console.log(
    `\nslowest of the shared lane's ${files.length} files (seconds in their tests, at nice ${SHARED_NICENESS}):`,
  );
  for (const f of files.slice(0, SLOWEST_SHOWN))
    console.log(`  ${f.seconds.toFixed(0).padStart(5)} s  ${f.tier.padEnd(11)} ${f.file}`);
}

/** What failed, last, where a CI log's tail shows it. */
function printFailures(results) {
  const failed = results.filter((r) => !r.ok);
  if (failed.length === 0) return;
  console.log("\nfailed:");
  for (const r of failed) {
    for (const f of r.failures) console.log(`  [${r.lane} ${r.tier}] ${f.name} (${f.location}): ${f.error}`);
    if (r.failures.length === 0)
      console.log(
        `  [${r.lane} ${r.tier}] ${r.files.join(" ")}: exited ${r.signal ?? r.code}, no failed test named`,
      );
  }
}

/**
 * Runs this script again under `flock` holding the bench lock (flock stays the tests' ancestor,
 * which bench-lock.ts counts as taken). Resolves with the exit status, or null when the lock was
 * not obtained in time: the run then goes on without it and each measuring file takes it itself.
 */
function rerunHoldingBenchLock() {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve) => {
    const child = spawn(
      "flock",
      [
        "-w",
        String(LOCK_WAIT_SECONDS),
        "-E",
        String(LOCK_CONFLICT_STATUS),
        BENCH_LOCK,
        process.execPath,
        script,
        ...process.argv.slice(2),
      ],
      { stdio: "inherit", env: { ...process.env, LNB_TESTS_HOLD_BENCH_LOCK: "1" } },
    );
    child.once("error", () => resolve(null));
    child.once("exit", (code, signal) => resolve(signal ? 1 : code === LOCK_CONFLICT_STATUS ? null : code));
  });
}

const { tiers, fragments, changed } = parseArguments(process.argv.slice(2));
const manifest = loadManifest();
const allFiles = findTestFiles();
const problems = manifestProblems(manifest, allFiles);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(2);
}
let chosen = allFiles.filter(
  (file) => fragments.length === 0 || fragments.some((fragment) => file.includes(fragment)),
);
if (changed !== null) {
  const touched = changedFiles(changed);
  const affected = new Set(testsAffectedBy(touched, readSources(), allFiles));
  chosen = chosen.filter((file) => affected.has(file));
  if (!process.env.LNB_TESTS_HOLD_BENCH_LOCK)
    console.log(
      `=== changed since ${changed} (with the work tree): ${touched.length} files; ${chosen.length} test files import them or are among them`,
    );
  if (chosen.length === 0) {
    console.log("no test file is affected by the change: nothing to run");
    process.exit(0);
  }
}
if (
  !process.env.LNB_TESTS_HOLD_BENCH_LOCK &&
  chosen.some((file) => tiers.includes(tierOf(file, manifest)) && timingOf(file, manifest) !== null)
) {
  const status = await rerunHoldingBenchLock();
  if (status !== null) process.exit(status);
  console.warn(
    `warning: ${BENCH_LOCK} not obtained within ${LOCK_WAIT_SECONDS} s: each measuring file takes it itself`,
  );
}
const plan = tiers
  .map((tier) => ({ tier, files: chosen.filter((file) => tierOf(file, manifest) === tier) }))
  .filter(({ files }) => files.length > 0);
if (plan.length === 0) {
  console.error(`no test files found (tiers ${tiers.join(", ")}; tiers are listed in ${MANIFEST})`);
  process.exit(1);
}

const { measuring, shared, quiet, emulated, background } = laneBatches(plan, manifest);
// with several lanes busy, each line says which lane and tier it comes from
const prefixed =
  [measuring, shared, quiet, emulated, background].filter((lane) => lane.length > 0).length > 1;
for (const { tier, files } of plan) {
  const count = (timing) => files.filter((file) => timingOf(file, manifest) === timing).length;
  console.log(
    `=== ${tier}: ${files.length} files (${count(null)} shared, ${SHARED_CONCURRENCY[tier]} at a time; measuring: ${count("paired")} paired, ${count("alone")} alone, ${count("quiet")} quiet, ${count("emulated")} emulated, ${count("background")} background)`,
  );
}
const scratch = mkdtempSync(join(tmpdir(), "lnb-test-tiers-"));
const startedMs = Date.now();
const compiled = await compileTests();
console.log(
  `=== compiled src/ and test/ into ${relative(process.cwd(), compiled.mirror)} in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`,
);
let lanes;
try {
  const [measured, sharedResults, emulatedResults, backgroundResults] = await Promise.all([
    runMeasuringLane(measuring, scratch, prefixed, compiled.mirror),
    runLane(shared, scratch, prefixed, compiled.mirror),
    runLane(emulated, scratch, prefixed, compiled.mirror),
    runLane(background, scratch, prefixed, compiled.mirror),
  ]);
  lanes = {
    measuring: measured,
    shared: sharedResults,
    emulated: emulatedResults,
    background: backgroundResults,
    quiet: await runLane(quiet, scratch, prefixed, compiled.mirror),
  };
} finally {
  rmSync(scratch, { recursive: true, force: true });
  compiled.remove();
}
const summaries = tierSummaries(plan, Object.values(lanes).flat());
printSummary(summaries, lanes, (Date.now() - startedMs) / 1000);
process.exit(summaries.every((r) => r.ok) ? 0 : 1);
