import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { removeLab } from "../../src/platforms/local/cleanup.js";
import { labDown, labUp } from "../../src/platforms/local/lab.js";
import { LabBusy } from "../../src/platforms/local/lab-holder.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { readRecords } from "../../src/results/run-directory.js";
import { cliArgv } from "../helpers/cli-process.js";
import { rootSkip } from "../helpers/root-gate.js";
import { ensureBuilt } from "./lab-helpers.js";

/**
 * Two processes, one lab, as a new user met it: while `run` measures on a lab, `lab down` and
 * `lab up` from elsewhere refuse, naming the run (PID and command); `lab down --force` takes
 * the lab anyway, and the run pauses instead of recording failures that were the lab's, so
 * `run --resume` completes it with every invocation measured.
 */
const skip = rootSkip("the lab ownership test");
const labs: string[] = [];
const children: ChildProcess[] = [];
let work: string | undefined;

after(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const lab of labs) await removeLab(lab);
  if (work) await rm(work, { recursive: true, force: true });
});

function startRun(args: string[]): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, cliArgv(["run", ...args], "run-cli-private-lab"), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  if (child.pid) labs.push(privateLabName(child.pid));
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function runDirectoryOf(out: string): Promise<string> {
  const [name] = (await readdir(out)).filter((entry) => entry.endsWith("-ownership"));
  assert.ok(name, "the run directory");
  return join(out, name);
}

/** Resolves once the run has recorded `count` planned invocations (polling, 120 s at most). */
async function recorded(out: string, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const dir = await runDirectoryOf(out).catch(() => null);
    const records = dir ? (await readRecords(dir)).records : [];
    if (records.filter((r) => !r.warmup).length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`fewer than ${count} invocations recorded within 120 s`);
}

test("lab down and lab up refuse while a run holds the lab; --force pauses the run; --resume completes it", {
  skip,
  timeout: 600_000,
}, async () => {
  ensureBuilt();
  work = await mkdtemp(join(tmpdir(), "lnb-ownership-"));
  const plan = join(work, "plan.json");
  await writeFile(
    plan,
    JSON.stringify({
      name: "ownership",
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024],
      repetitions: 8,
      parallelism: 1,
      probes: [{ kind: "iperf3", timeSeconds: 3, parallel: 1 }],
    }),
  );
  const first = startRun(["--config", plan, "--out", work]);
  await recorded(work, 1);
  const labName = privateLabName(first.child.pid);

  const holder = (error: unknown) =>
    error instanceof LabBusy &&
    error.holder.pid === first.child.pid &&
    error.message.includes(`process ${first.child.pid}`) &&
    // the CLI entry from source (.ts) or from the test run's compiled mirror (.js)
    /run-cli-private-lab\.[jt]s run --config/.test(error.message);
  await assert.rejects(labDown(labName), holder, "lab down refuses, naming the run");
  await assert.rejects(labUp({ labName, profile: "default-625" }), holder, "lab up refuses too");

  await labDown(labName, { force: true });
  assert.equal(await first.exit, 1, first.output());
  assert.match(
    first.output(),
    /lab lnblabp\d+ (was taken down while this run was using it|stopped working under this run)/,
  );
  assert.match(first.output(), /resume with: lambda-netbench run --resume/);
  const dir = await runDirectoryOf(work);
  const before = (await readRecords(dir)).records.filter((r) => !r.warmup);
  assert.ok(before.length < 8, "the run stopped early");
  assert.deepEqual(
    before.filter((r) => !r.ok).map((r) => r.error?.message),
    [],
    "no failure the lab caused is recorded",
  );

  const resumed = startRun(["--resume", dir]);
  assert.equal(await resumed.exit, 0, resumed.output());
  const records = (await readRecords(dir)).records.filter((r) => !r.warmup);
  assert.deepEqual(
    records.map((r) => r.repetition).sort(),
    [1, 2, 3, 4, 5, 6, 7, 8],
    "every invocation once",
  );
  assert.ok(
    records.every((r) => r.ok),
    "all measured",
  );
});
