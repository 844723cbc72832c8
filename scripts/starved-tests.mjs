// Runs test files the way a busy host treats the shared lane: each file's whole process tree
// (its servers, stock peers and clients) is stopped (SIGSTOP) for --stop-ms in every
// --stop-ms + --run-ms, at nice 19. A test that holds only while its process runs promptly (a 1 s
// timeout a peer must beat, a 200 ms sleep standing in for "the server noticed") fails here
// deterministically, where a loaded CI run fails it once in a while (docs/testing.md).
//   node scripts/starved-tests.mjs [--stop-ms 1000] [--run-ms 500] [--changed [--base REF]] [FRAGMENT ...]
// Without fragments or --changed: every shared-lane file (not listed in a timing list of
// test/tiers.json). A measuring file is run only when named: it measures a link, and a stopped
// sender does not carry one.
import { spawn } from "node:child_process";
import { changedFiles, readSources, testsAffectedBy } from "./changed-tests.mjs";
import { tapCounts, tapFailures } from "./tap-results.mjs";
import { findTestFiles, loadManifest, timingOf } from "./test-tiers.mjs";

const CONCURRENCY = 3;
const NICENESS = 19;
const TEST_TIMEOUT_MS = 600_000;

function parseArguments(argv) {
  const options = { stopMs: 1_000, runMs: 500, changed: null, fragments: [] };
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      const number = Number(argv[++i]);
      if (!(number >= 10 && number <= 60_000)) {
        console.error(`${argv[i - 1]} takes milliseconds from 10 to 60000, got ${argv[i]}`);
        process.exit(2);
      }
      return number;
    };
    if (argv[i] === "--stop-ms") options.stopMs = value();
    else if (argv[i] === "--run-ms") options.runMs = value();
    else if (argv[i] === "--changed") options.changed ??= "main";
    else if (argv[i] === "--base") options.changed = argv[++i] ?? "main";
    else options.fragments.push(argv[i]);
  }
  return options;
}

function chooseFiles({ changed, fragments }) {
  const manifest = loadManifest();
  const all = findTestFiles();
  let chosen = all.filter((file) => fragments.some((fragment) => file.includes(fragment)));
  if (fragments.length === 0) chosen = all.filter((file) => timingOf(file, manifest) === null);
  if (changed !== null) {
    const affected = new Set(testsAffectedBy(changedFiles(changed), readSources(), all));
    chosen = chosen.filter((file) => affected.has(file));
  }
  return chosen;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Signals a process group; false once it is gone. */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** One file in its own process group, stopped and continued until it exits. */
async function runStarved(file, { stopMs, runMs }) {
  const startedMs = Date.now();
  const child = spawn(
    "nice",
    [
      "-n",
      String(NICENESS),
      process.execPath,
      "--import",
      "tsx",
      "--test",
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      "--test-reporter=tap",
      file,
    ],
    { detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let tap = "";
  child.stdout.on("data", (chunk) => {
    tap += chunk;
  });
  child.stderr.resume();
  let exited = false;
  const exit = new Promise((resolve) =>
    child.once("close", (code, signal) => {
      exited = true;
      resolve(code === 0 && signal === null);
    }),
  );
  while (!exited) {
    await Promise.race([sleep(runMs), exit]);
    if (exited || !signalGroup(child.pid, "SIGSTOP")) break;
    await sleep(stopMs);
    // whatever happened meanwhile, nothing of the group may stay stopped
    signalGroup(child.pid, "SIGCONT");
  }
  const ok = await exit;
  return {
    file,
    ok,
    counts: tapCounts(tap),
    failures: tapFailures(tap),
    seconds: (Date.now() - startedMs) / 1000,
  };
}

const options = parseArguments(process.argv.slice(2));
const files = chooseFiles(options);
if (files.length === 0) {
  console.error("no test files chosen");
  process.exit(1);
}
console.log(
  `=== ${files.length} files, ${CONCURRENCY} at a time, each process tree stopped ${options.stopMs} ms in every ${options.stopMs + options.runMs} ms`,
);
const queue = [...files];
const results = [];
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runStarved(file, options);
      results.push(result);
      const { passed, failed } = result.counts;
      console.log(
        `${result.ok ? "ok  " : "FAIL"} ${file}: ${passed} passed, ${failed} failed, ${result.seconds.toFixed(0)} s`,
      );
      for (const failure of result.failures) console.log(`       ${failure.name}: ${failure.error}`);
    }
  }),
);
const failedFiles = results.filter((result) => !result.ok);
console.log(`starved: ${results.length - failedFiles.length} of ${results.length} files held`);
process.exit(failedFiles.length === 0 ? 0 : 1);
