// A real account's first run, rehearsed: the real CLI against moto with the fault layer in front
// (test/rehearsal/aws-faults.ts) answering as a locked-down, busy account does. In order on one
// account: deploy under throttling and 5xx bursts, dry runs that must write nothing, a run that
// meets Lambda's "update in progress" and then expired credentials (it pauses and resumes), and
// a teardown while an SCP denies the scheduler, the tagging API and CloudWatch Logs outright.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { acquireBenchLock } from "../helpers/bench-lock.js";
import { findLeftovers } from "./leftovers.js";
import { assertExit, REHEARSAL_REGION, rehearsalSkip, runCli, useRehearsal, writes } from "./rehearsal.js";

const skip = rehearsalSkip();
const region = REHEARSAL_REGION;

// 4,096 MB: above what every account allows, so the dry run has a memory limit to speak of
const setUp = useRehearsal(skip, {
  name: "faults",
  memoryMb: [1024, 4096],
  warmup: false,
  probes: ["{ kind: s3-get, objectMib: 16, concurrency: 2, chunkMib: 8 }"],
});

async function cli(args: string[], options: Parameters<typeof runCli>[2] = {}) {
  const mark = setUp.rehearsal.front.faults.calls.length;
  const result = await runCli(setUp.rehearsal, args, options);
  const calls = setUp.rehearsal.front.faults.calls.slice(mark);
  const faulted = calls.filter((call) => call.fault).map((call) => `${call.operation} ${call.fault}`);
  return {
    ...result,
    calls,
    all: `${result.stdout}\n${result.stderr}\nfaults injected: ${faulted.length}${faulted.length ? ` (${[...new Set(faulted)].join(", ")})` : ""}`,
  };
}

test("quota get --region, as every other AWS command takes it", { skip, timeout: 60_000 }, async () => {
  const get = await cli(["quota", "get", "--region", region]);
  assertExit(get, 0);
  assert.match(get.stdout, /us-west-2\s+625\s+625\s+code L-14320ECE/);
  const both = await cli(["quota", "get", "--region", region, "--regions", region]);
  assertExit(both, 2);
  assert.match(both.all, /--region and --regions were both given: pass one of them/);
});

test("deploy under throttling and 5xx bursts: CloudFormation (13 in a row), S3 and Lambda busy far beyond three", {
  skip,
  timeout: 300_000,
}, async () => {
  setUp.rehearsal.front.faults.set([
    // the stack's state, polled throughout: throttled 8 times in a row, then a 5xx burst (the
    // second rule meets only the calls the first lets through)
    { service: "cloudformation", operation: "DescribeStacks", skip: 1, times: 8, fault: "throttle" },
    { service: "cloudformation", operation: "DescribeStacks", times: 5, fault: "unavailable" },
    { service: "cloudformation", operation: "CreateStack", times: 2, fault: "unavailable" },
    { service: "s3", method: "PUT", times: 4, fault: "throttle" },
    { service: "lambda", operation: "Invoke", times: 5, fault: "throttle" },
  ]);
  try {
    const deploy = await cli(["deploy", "--region", region, "--arch", "x86_64", "--test-object-mib", "16"], {
      timeoutMs: 280_000,
    });
    assertExit(deploy, 0);
    assert.match(deploy.stdout, /stack lambda-netbench in us-west-2: created/);
    const injected = setUp.rehearsal.front.faults.injected();
    assert.deepEqual(injected, [8, 5, 2, 4, 5], `every fault was met:\n${deploy.all}`);
  } finally {
    setUp.rehearsal.front.faults.clear();
  }
});

test("dry runs write nothing: run, deploy and teardown --dry-run make no write call of any kind", {
  skip,
  timeout: 240_000,
}, async () => {
  const run = await cli(["run", "--config", setUp.planFile, "--regions", region, "--dry-run"]);
  assert.deepEqual(writes(run.calls), [], run.all);
  // 4,096 MB: only a real update tells whether the account takes it
  assert.match(run.all, /--\s+memory\s+us-west-2\s+4096 MB not checked/);
  assertExit(run, 0);
  const deploy = await cli([
    "deploy",
    "--region",
    region,
    "--arch",
    "x86_64",
    "--test-object-mib",
    "16",
    "--dry-run",
  ]);
  assert.deepEqual(writes(deploy.calls), [], deploy.all);
  assertExit(deploy, 0);
  const teardown = await cli(["teardown", "--region", region, "--dry-run"]);
  assert.deepEqual(writes(teardown.calls), [], teardown.all);
  assertExit(teardown, 0);
});

test("a run meets Lambda's update in progress, then expired credentials: it pauses with nothing failed, and --resume finishes it", {
  skip,
  timeout: 600_000,
}, async () => {
  const out = join(setUp.work, "runs");
  const lock = await acquireBenchLock(600);
  try {
    setUp.rehearsal.front.faults.set([
      { service: "lambda", operation: "UpdateFunctionConfiguration", times: 8, fault: "lambda-conflict" },
      // the login lapses once the first version is published: from then on, every call
      {
        service: "*",
        armedBy: { service: "lambda", operation: "PublishVersion" },
        skip: 1,
        times: Number.POSITIVE_INFINITY,
        fault: "expired-token",
      },
    ]);
    const first = await cli(["run", "--config", setUp.planFile, "--regions", region, "--yes", "--out", out], {
      timeoutMs: 300_000,
    });
    assert.deepEqual(setUp.rehearsal.front.faults.injected()[0], 8, first.all);
    assert.ok(
      (setUp.rehearsal.front.faults.injected()[1] ?? 0) > 0,
      `the credentials expired:\n${first.all}`,
    );
    assertExit(first, 1);
    assert.match(first.all, /AWS credentials expired \(ExpiredTokenException/);
    assert.match(first.all, /Then resume with: lambda-netbench run --resume /);
    const [name] = await readdir(out);
    const dir = join(out, name as string);
    const recorded = (await readFile(join(dir, "results.jsonl"), "utf8")).trim();
    const before = recorded ? recorded.split("\n").map((line) => JSON.parse(line) as { ok: boolean }) : [];
    assert.deepEqual(
      before.filter((record) => !record.ok),
      [],
      "nothing recorded as failed",
    );
    // logged in again
    setUp.rehearsal.front.faults.clear();
    const resumed = await cli(["run", "--resume", dir, "--yes"], { timeoutMs: 300_000 });
    assertExit(resumed, 0);
    const records = (await readFile(join(dir, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { ok: boolean; cellId: string; repetition: number });
    assert.equal(records.length, 2, resumed.all);
    assert.ok(
      records.every((record) => record.ok),
      resumed.all,
    );
    assert.equal(new Set(records.map((r) => `${r.cellId}#${r.repetition}`)).size, 2);
  } finally {
    setUp.rehearsal.front.faults.clear();
    lock.release();
  }
});

test("teardown while an SCP denies the scheduler, the tagging API and CloudWatch Logs: nothing is left", {
  skip,
  timeout: 300_000,
}, async () => {
  setUp.rehearsal.front.faults.set(
    ["scheduler", "tagging", "logs"].map((service) => ({
      service,
      times: Number.POSITIVE_INFINITY,
      fault: "scp-deny" as const,
    })),
  );
  try {
    const teardown = await cli(["teardown", "--region", region], { timeoutMs: 280_000 });
    assertExit(teardown, 0);
    assert.match(teardown.stdout, /stack deleted/);
    for (const permission of ["scheduler:ListSchedules", "tag:GetResources", "logs:DescribeLogGroups"])
      assert.match(teardown.all, new RegExp(`not verified.*${permission}`), `${permission} named`);
  } finally {
    setUp.rehearsal.front.faults.clear();
  }
  assert.deepEqual(await findLeftovers(setUp.rehearsal.moto.url, region), []);
});
