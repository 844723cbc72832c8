import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { runCli as cli, cliArgv, listeningPort } from "../helpers/cli-process.js";

/**
 * `probe bucket` end to end on loopback against our iperf3 server (no burst is expected: this
 * checks the command, its JSON and --save-profile, not the fit's accuracy, which
 * test/e2e/bucket-on-lab.test.ts checks on real shaping). ~15 s. The server paces each of the two
 * flows to 150 Mbit/s and the file runs paired (test/tiers.json): unpaced, the transfer took all
 * the CPU it could, and in the shared lane at nice 19 beside a busy loop a 2 s transfer sampled
 * every 50 ms got 3 samples in 2.39 s, too few to fit.
 */
const FLOW_CAP_MBPS = 150;
test("probe bucket: models per direction as JSON, and --save-profile writes a plan that loads", async () => {
  const server = spawn(
    process.execPath,
    cliArgv(["iperf3-server", "--port", "0", "--bind", "127.0.0.1", "--flow-cap", `${FLOW_CAP_MBPS}`]),
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const dir = await mkdtemp(join(tmpdir(), "lnb-bucket-cli-"));
  try {
    const { port } = await listeningPort(server, "127.0.0.1");
    const run = await cli([
      "probe",
      "bucket",
      "--host",
      "127.0.0.1",
      "--port",
      `${port}`,
      "--time",
      "2",
      "--gaps",
      "0.2,0.4",
      "--refill-time",
      "0.5",
      "--repetitions",
      "2",
      "--parallel",
      "2",
      "--interval-ms",
      "50",
      "--memory-mb",
      "2048",
      "--json",
      "--save-profile",
      "measured-here",
      "--out",
      dir,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const { models, fits } = JSON.parse(run.stdout) as {
      models: Array<{ direction: string; n: number; sustainedBitsPerSecond: { median: number } }>;
      fits: unknown[];
    };
    assert.deepEqual(
      models.map((m) => [m.direction, m.n]),
      [
        ["download", 2],
        ["upload", 2],
      ],
    );
    assert.equal(fits.length, 4);
    // two paced flows: 300 Mbit/s, never above it
    assert.ok(
      models.every(
        (m) =>
          m.sustainedBitsPerSecond.median > FLOW_CAP_MBPS * 1e6 &&
          m.sustainedBitsPerSecond.median <= 2 * FLOW_CAP_MBPS * 1.05e6,
      ),
      JSON.stringify(models.map((m) => m.sustainedBitsPerSecond.median)),
    );
    const plan = validatePlan(JSON.parse(await readFile(join(dir, "measured-here.plan.json"), "utf8")));
    assert.deepEqual(plan.targets, [{ platform: "local", profile: "measured-here" }]);
    assert.deepEqual(plan.memoryMb, [2048]);
    const profile = plan.profiles?.[0];
    assert.equal(profile?.payload, true);
    assert.equal(
      profile?.download[0]?.megabitsPerSecond,
      Math.round((models[0]?.sustainedBitsPerSecond.median ?? 0) / 1e4) / 100,
    );
  } finally {
    server.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
});

test("probe bucket refuses bad options naming them and the allowed values", async () => {
  const direction = await cli(["probe", "bucket", "--host", "127.0.0.1", "--direction", "sideways"]);
  assert.equal(direction.code, 2);
  assert.match(
    direction.stderr,
    /--direction: "sideways" is not allowed \(allowed: upload, download, both\)/,
  );
  const name = await cli(["probe", "bucket", "--host", "127.0.0.1", "--save-profile", "default-625"]);
  assert.equal(name.code, 2);
  assert.match(name.stderr, /"default-625" is a built-in profile/);
  const gaps = await cli(["probe", "bucket", "--host", "127.0.0.1", "--gaps", "1,0.5", "--repetitions", "1"]);
  assert.equal(gaps.code, 1);
  assert.match(gaps.stderr, /gapsSeconds: gaps must be strictly increasing/);
});
