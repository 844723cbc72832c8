// Runs the test files with node's built-in runner (TypeScript through tsx), tier by tier:
//   node scripts/run-tests.mjs                      every tier, in order (`npm test`)
//   node scripts/run-tests.mjs --tier unit          one tier (`npm run test:unit`); a comma list for several
//   node scripts/run-tests.mjs FRAGMENT ...         the files whose path contains a fragment, each in its tier
// Tiers come from test/tiers.json (docs/testing.md). Pure unit files run several at once under a
// guard that fails any test starting a process or opening a socket; integration files two at a
// time (loopback servers and child processes, mostly waiting); lab, e2e and vm files one at a
// time, because they create namespaces and measure throughput, and on a 2-core machine parallel
// files would disturb each other's timing. Files listed `alone` run by themselves after the rest
// of their tier. No single test may run past 15 minutes: a hang fails loudly instead of stalling CI.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  findTestFiles,
  loadManifest,
  MANIFEST,
  manifestProblems,
  runsAlone,
  TIER_NAMES,
  tierOf,
} from "./test-tiers.mjs";

/** How many files of a tier run at once, measured on the 2-core build machine (docs/testing.md). */
const CONCURRENCY = { unit: 4, integration: 2, lab: 1, e2e: 1, vm: 1 };
const UNIT_GUARD = "./test/helpers/unit-guard.ts";

function parseArguments(argv) {
  const tiers = [];
  const fragments = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tier") tiers.push(...(argv[++i] ?? "").split(","));
    else fragments.push(argv[i]);
  }
  const unknown = tiers.filter((tier) => !TIER_NAMES.includes(tier));
  if (unknown.length > 0) {
    console.error(`unknown tier ${unknown.join(", ")}: the tiers are ${TIER_NAMES.join(", ")}`);
    process.exit(2);
  }
  return { tiers: tiers.length > 0 ? tiers : TIER_NAMES, fragments };
}

/** Counts from node's TAP summary lines ("# pass 12"). */
function tapCounts(text) {
  const count = (name) => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1] ?? 0);
  return {
    tests: count("tests"),
    passed: count("pass"),
    failed: count("fail") + count("cancelled"),
    skipped: count("skipped") + count("todo"),
  };
}

/** One `node --test` over `files`; resolves with its counts and exit status. */
function runBatch(tier, files, concurrency, scratch, index) {
  const tap = join(scratch, `${tier}-${index}.tap`);
  const imports = ["--import", "tsx", ...(tier === "unit" ? ["--import", UNIT_GUARD] : [])];
  const args = [
    ...imports,
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-timeout=900000",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit" });
    child.once("exit", (code, signal) => {
      let counts = { tests: 0, passed: 0, failed: 0, skipped: 0 };
      try {
        counts = tapCounts(readFileSync(tap, "utf8"));
      } catch {
        // no TAP file: the runner itself died; the status says so below
      }
      resolve({ ...counts, ok: code === 0 && signal === null });
    });
  });
}

async function runTier(tier, files, manifest, scratch) {
  const together = files.filter((file) => !runsAlone(file, manifest));
  const alone = files.filter((file) => runsAlone(file, manifest));
  const batches = [
    ...(together.length > 0 ? [{ files: together, concurrency: CONCURRENCY[tier] }] : []),
    ...alone.map((file) => ({ files: [file], concurrency: 1 })),
  ];
  console.log(`\n=== ${tier}: ${files.length} files (${CONCURRENCY[tier]} at a time, ${alone.length} alone)`);
  const started = Date.now();
  const total = { tests: 0, passed: 0, failed: 0, skipped: 0, ok: true };
  for (const [index, batch] of batches.entries()) {
    const result = await runBatch(tier, batch.files, batch.concurrency, scratch, index);
    for (const key of ["tests", "passed", "failed", "skipped"]) total[key] += result[key];
    total.ok &&= result.ok;
  }
  return { tier, files: files.length, seconds: (Date.now() - started) / 1000, ...total };
}

const { tiers, fragments } = parseArguments(process.argv.slice(2));
const manifest = loadManifest();
const allFiles = findTestFiles();
const problems = manifestProblems(manifest, allFiles);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(2);
}
const chosen = allFiles.filter(
  (file) => fragments.length === 0 || fragments.some((fragment) => file.includes(fragment)),
);
const plan = tiers
  .map((tier) => ({ tier, files: chosen.filter((file) => tierOf(file, manifest) === tier) }))
  .filter(({ files }) => files.length > 0);
if (plan.length === 0) {
  console.error(`no test files found (tiers ${tiers.join(", ")}; tiers are listed in ${MANIFEST})`);
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), "lnb-test-tiers-"));
const started = Date.now();
const results = [];
try {
  for (const { tier, files } of plan) results.push(await runTier(tier, files, manifest, scratch));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

console.log("\ntier         files  tests  passed  failed  skipped  seconds");
for (const r of results) {
  const cells = [r.files, r.tests, r.passed, r.failed, r.skipped, r.seconds.toFixed(0)];
  console.log(
    `${r.tier.padEnd(11)} ${cells.map((c, i) => String(c).padStart([6, 6, 7, 7, 8, 8][i])).join(" ")}`,
  );
}
const sum = (key) => results.reduce((total, r) => total + r[key], 0);
console.log(`whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`);
// the plain closing line CI reads, over every tier
console.log(`tests: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
