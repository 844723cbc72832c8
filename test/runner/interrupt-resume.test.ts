import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { readManifest, readRecords } from "../../src/results/run-directory.js";
import { cliArgv } from "../helpers/cli-process.js";
import { loopProfile } from "../helpers/loopback-platform.js";

/**
 * The real `run` command in a child process on the loopback test platform, killed with
 * SIGKILL mid-run (or interrupted with SIGINT), then resumed: every cell ends up recorded
 * exactly once per repetition.
 */
let work: string;
const pidFile = () => join(work, "server-pids");

before(async () => {
  work = await mkdtemp(join(tmpdir(), "lnbr-resume-"));
  await writeFile(
    join(work, "plan.json"),
    JSON.stringify({
      name: "resume",
      targets: [
        { platform: "local", profile: "loop-a" },
        { platform: "local", profile: "loop-b" },
      ],
      profiles: [loopProfile("loop-a"), loopProfile("loop-b")],
      memoryMb: [1024, 2048],
      repetitions: 3,
      probes: [{ kind: "iperf3", timeSeconds: 1, parallel: 1 }, { kind: "info" }],
    }),
  );
});

after(async () => {
  // the iperf3 servers of a SIGKILLed runner are orphans: kill them by PID
  const pids = await readFile(pidFile(), "utf8").catch(() => "");
  for (const pid of pids.split("\n").filter((p) => p !== "")) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {}
  }
  await rm(work, { recursive: true, force: true });
});

function startCli(args: string[]): {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, cliArgv(args, "run-cli-loopback"), {
    env: { ...process.env, LNBR_PID_FILE: pidFile(), LNBR_INVOKE_DELAY_MS: "200" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function waitForRecords(outDir: string, atLeast: number, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dirs = await readdir(outDir).catch(() => [] as string[]);
    if (dirs[0]) {
      const dir = join(outDir, dirs[0]);
      const { records } = await readRecords(dir).catch(() => ({ records: [] }));
      if (records.filter((r) => !r.warmup).length >= atLeast) return dir;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${atLeast} records after ${timeoutMs} ms`);
}

async function assertCompleteOnce(dir: string): Promise<void> {
  const manifest = await readManifest(dir);
  const { records, truncatedTail } = await readRecords(dir);
  assert.equal(truncatedTail, false);
  const measured = records.filter((r) => !r.warmup);
  const expected = manifest.cells.flatMap((cell) =>
    Array.from({ length: cell.repetitions }, (_, i) => `${cell.id}#${i + 1}`),
  );
  const seen = measured.map((r) => `${r.cellId}#${r.repetition}`);
  assert.deepEqual([...seen].sort(), [...expected].sort(), "every cell exactly once per repetition");
  assert.ok(manifest.completedAt, "the resumed run is marked complete");
  assert.ok(
    measured.filter((r) => r.probe === "iperf3").every((r) => r.ok),
    "iperf3 records measured real traffic",
  );
}

test("kill -9 mid-run, then --resume: every cell exactly once per repetition", {
  timeout: 180_000,
}, async () => {
  const outDir = join(work, "killed");
  const first = startCli(["run", "--config", join(work, "plan.json"), "--out", outDir]);
  const dir = await waitForRecords(outDir, 4, 60_000);
  first.child.kill("SIGKILL");
  await first.exit;
  const before = (await readRecords(dir)).records.filter((r) => !r.warmup).length;
  assert.ok(before >= 4 && before < 24, `killed mid-run (${before} of 24 recorded)`);
  assert.equal((await readManifest(dir)).completedAt, null);

  const second = startCli(["run", "--resume", dir]);
  const code = await second.exit;
  assert.equal(code, 0, second.output());
  assert.match(second.output(), new RegExp(`${24 - before} of 24 invocations to go`));
  await assertCompleteOnce(dir);
  const html = await readFile(join(dir, "report.html"), "utf8");
  assert.match(html, /<svg/);
});

test("Ctrl-C stops cleanly, says how to resume, and resume completes the run", {
  timeout: 180_000,
}, async () => {
  const outDir = join(work, "interrupted");
  const first = startCli(["run", "--config", join(work, "plan.json"), "--out", outDir]);
  const dir = await waitForRecords(outDir, 2, 60_000);
  first.child.kill("SIGINT");
  const code = await first.exit;
  assert.equal(code, 130, first.output());
  assert.match(first.output(), /Resume with: lambda-netbench run --resume /);
  const { records, truncatedTail } = await readRecords(dir);
  assert.equal(truncatedTail, false, "a clean stop leaves no half-written line");
  assert.ok(records.filter((r) => !r.warmup).length < 24);

  const second = startCli(["run", "--resume", dir]);
  assert.equal(await second.exit, 0, second.output());
  await assertCompleteOnce(dir);
});
