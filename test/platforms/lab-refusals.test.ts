import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { netemProblem } from "../../src/platforms/local/capabilities.js";
import { bundleCli, type CliBundle } from "../helpers/cli-bundle.js";
import { cliArgv } from "../helpers/cli-process.js";

/**
 * The CLI refuses, with exit code 2 and the field named, before any run directory or lab
 * exists: an unknown profile, a custom profile with a bad curve or a negative round trip, a
 * round trip where the kernel has no netem, and a shaped run or `lab up` by a non-root user
 * (told about sudo and --unshaped). The non-root cases run the real CLI as `nobody`
 * (setpriv), so the check is the one a real user meets, not an override. `nobody` runs the CLI
 * bundled into a directory it may read (test/helpers/cli-bundle.ts): the checkout may sit where
 * only root may enter (a clone under `mktemp -d`, or in /root).
 */
const work = mkdtempSync(join(tmpdir(), "lnb-refusals-"));
chmodSync(work, 0o777);
const asRoot = process.getuid?.() === 0;
const noSetpriv = asRoot && spawnSync("setpriv", ["--version"]).status !== 0;
let bundle: CliBundle | undefined;
before(async () => {
  if (asRoot && !noSetpriv) bundle = await bundleCli();
});
after(() => {
  rmSync(work, { recursive: true, force: true });
  bundle?.remove();
});

const slowLink = {
  name: "slow-link",
  download: [{ memoryMb: 128, megabitsPerSecond: 100 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 100 }],
  roundTripMs: 20,
};

function planFile(name: string, profile: Record<string, unknown>, targetProfile = "slow-link"): string {
  const path = join(work, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      name,
      targets: [{ platform: "local", profile: targetProfile }],
      memoryMb: [1024],
      probes: [{ kind: "info" }],
      profiles: [profile],
    }),
  );
  chmodSync(path, 0o644);
  return path;
}

/** The CLI from source; as `nobody` when asked (and when we are root, so we can drop to it), from the bundle. */
function cli(args: string[], asNobody = false): { status: number | null; stderr: string } {
  const result =
    asNobody && bundle
      ? spawnSync(
          "setpriv",
          [
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "--reset-env",
            process.execPath,
            ...bundle.argv(args),
          ],
          {
            cwd: bundle.dir,
            encoding: "utf8",
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
            timeout: 120_000,
          },
        )
      : spawnSync(process.execPath, cliArgv(args), { encoding: "utf8", timeout: 120_000 });
  return { status: result.status, stderr: result.stderr };
}

function runDirectories(out: string): string[] {
  try {
    return readdirSync(out);
  } catch {
    return [];
  }
}

test("an unknown profile is refused when the plan loads, with the allowed names, before a run directory exists", () => {
  const out = join(work, "out-unknown");
  const result = cli(["run", "--config", planFile("unknown", slowLink, "slow-lnk"), "--out", out]);
  assert.equal(result.status, 2, result.stderr);
  assert.match(
    result.stderr,
    /targets\.0\.profile: unknown lab profile "slow-lnk" \(allowed: default-625, raised-3000, seed-oregon-2026, seed-tokyo-2026, slow-link/,
  );
  assert.deepEqual(runDirectories(out), []);
});

test("a custom profile with a bad curve or a negative round trip: exit 2 naming the field", () => {
  const out = join(work, "out-bad");
  const badCurve = cli([
    "run",
    "--config",
    planFile("bad-curve", {
      ...slowLink,
      upload: [
        { memoryMb: 2048, megabitsPerSecond: 10 },
        { memoryMb: 1024, megabitsPerSecond: 20 },
      ],
    }),
    "--out",
    out,
  ]);
  assert.equal(badCurve.status, 2, badCurve.stderr);
  assert.match(badCurve.stderr, /profiles\.0\.upload: points must be sorted by memoryMb/);
  const negative = cli([
    "run",
    "--config",
    planFile("negative", { ...slowLink, roundTripMs: -5 }),
    "--out",
    out,
  ]);
  assert.equal(negative.status, 2, negative.stderr);
  assert.match(negative.stderr, /profiles\.0\.roundTripMs: /);
  const lab = cli(["lab", "up", "--config", planFile("negative-lab", { ...slowLink, roundTripMs: -5 })]);
  assert.equal(lab.status, 2, lab.stderr);
  assert.match(lab.stderr, /profiles\.0\.roundTripMs: /);
  assert.deepEqual(runDirectories(out), []);
});

test("a shaped run or lab up without root is refused naming sudo and --unshaped", {
  skip: noSetpriv ? "SKIPPED: setpriv (util-linux) is needed to run the CLI as nobody" : false,
}, () => {
  const out = join(work, "out-nobody");
  const run = cli(["run", "--preset", "quick", "--out", out], true);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /lambda-netbench run: .*needs root/);
  assert.match(run.stderr, /sudo/);
  assert.match(run.stderr, /--unshaped/);
  assert.deepEqual(runDirectories(out), []);
  const up = cli(["lab", "up"], true);
  assert.equal(up.status, 2, up.stderr);
  assert.match(up.stderr, /lambda-netbench lab up: .*needs root.*sudo.*--unshaped/);
});

test("a round trip where the kernel has no netem: exit 2 naming profiles.N.roundTripMs, nothing started", async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip("SKIPPED without root: the netem check runs after the root check");
    return;
  }
  if ((await netemProblem()) === null) {
    t.skip("SKIPPED: this kernel has netem (the round trip is applied; see lab-round-trip.test.ts)");
    return;
  }
  const out = join(work, "out-netem");
  const run = cli(["run", "--config", planFile("netem", slowLink), "--out", out]);
  assert.equal(run.status, 2, run.stderr);
  assert.match(
    run.stderr,
    /profiles\.0\.roundTripMs \(20 ms, profile slow-link\): needs the kernel's netem qdisc/,
  );
  assert.deepEqual(runDirectories(out), []);
  const lossOnly = cli([
    "lab",
    "up",
    "--config",
    planFile("loss", { ...slowLink, roundTripMs: 0, lossPercent: 1 }),
    "--lab-profile",
    "slow-link",
  ]);
  assert.equal(lossOnly.status, 2, lossOnly.stderr);
  assert.match(
    lossOnly.stderr,
    /profiles\.0\.lossPercent \(1%, profile slow-link\): needs the kernel's netem qdisc/,
  );
});
