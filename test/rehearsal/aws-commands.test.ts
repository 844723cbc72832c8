// Every AWS command as a user types it (the real CLI, a child process, AWS_ENDPOINT_URL set, fake
// static credentials), against moto plus the rehearsal's additions (test/rehearsal/rehearsal.ts).
// The tests run in order on one account: quota, deploy, the dry run, a small run and its resume,
// schedules, runs pull, teardown and a look at every service afterwards.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { DescribeSubnetsCommand } from "@aws-sdk/client-ec2";
import { GetFunctionConfigurationCommand, ListVersionsByFunctionCommand } from "@aws-sdk/client-lambda";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { GetScheduleCommand } from "@aws-sdk/client-scheduler";
import { GetParameterCommand } from "@aws-sdk/client-ssm";
import { agentNode } from "../../src/platforms/local/agent-node.js";
import { costPerGigabyte } from "../../src/results/analysis.js";
import { lambdaPrice } from "../../src/results/price-table.js";
import { acquireBenchLock, type BenchLock } from "../helpers/bench-lock.js";
import { findLeftovers } from "./leftovers.js";
import {
  assertExit,
  INSTANCE_PUBLIC_ADDRESS,
  publishedVersions,
  REHEARSAL_PROFILE,
  REHEARSAL_REGION,
  rehearsalSkip,
  runCli,
  useRehearsal,
} from "./rehearsal.js";

const skip = rehearsalSkip();
const region = REHEARSAL_REGION;
const shaped = process.getuid?.() === 0;

let subnets: string[] = [];
const started = performance.now();
// two memory sizes, iperf3 and s3-get; a 16 MiB object (moto keeps objects in memory)
const setUp = useRehearsal(
  skip,
  {
    name: "rehearsal",
    memoryMb: [1024, 2048],
    probes: [
      // 5 s, not 3: the burst (1 s at 560 Mbit/s over 125, the lab at 1/5: REHEARSAL_PROFILE)
      // lasts longer when a busy host slows the stream, and a 3 s test then kept under the 2 s a
      // sustained rate needs (CI: sustained 0)
      "{ kind: iperf3, timeSeconds: 5, parallel: 1, direction: upload }",
      "{ kind: s3-get, objectMib: 16, concurrency: 2, chunkMib: 8 }",
    ],
  },
  async (rehearsal) => {
    const described = await rehearsal.moto.ec2.send(new DescribeSubnetsCommand({}));
    subnets = (described.Subnets ?? []).filter((s) => s.DefaultForAz).map((s) => s.SubnetId as string);
  },
);

after(() => {
  if (skip) return;
  console.log(`rehearsal tests: ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
});

async function cli(args: string[], options: Parameters<typeof runCli>[2] = {}) {
  const mark = setUp.rehearsal.front.forwarded.length;
  const result = await runCli(setUp.rehearsal, args, options);
  // moto's failures during this command, so a failed assertion says where moto fell short
  const failed = setUp.rehearsal.front.forwarded.slice(mark).filter((line) => / 5\d\d$/.test(line));
  return {
    ...result,
    all: `${result.stdout}\n${result.stderr}${failed.length ? `\nmoto 5xx:\n${failed.join("\n")}` : ""}`,
  };
}

test("quota get, request, history: the value in force, one open request at a time, AWS Support's answer", {
  skip,
  timeout: 120_000,
}, async () => {
  const get = await cli(["quota", "get", "--regions", region]);
  assertExit(get, 0);
  assert.match(get.stdout, /us-west-2\s+625\s+625\s+code L-14320ECE\s+none\s+none/);

  const tooHigh = await cli(["quota", "request", "--regions", region, "--value", "4000"]);
  assert.notEqual(tooHigh.code, 0);
  assert.match(tooHigh.all, /3,?000/);

  const answeredBefore = setUp.rehearsal.front.answered.filter((c) =>
    c.includes("RequestServiceQuotaIncrease"),
  ).length;
  const request = await cli(["quota", "request", "--regions", region, "--value", "3000"]);
  assertExit(request, 0);
  assert.match(
    request.stdout,
    /requested 3000 Mbit\/s \(in force: 625\): request [0-9a-f]{32}, status PENDING/,
  );
  const again = await cli(["quota", "request", "--regions", region, "--value", "3000"]);
  assertExit(again, 1);
  assert.match(again.all, /still PENDING/);
  // the refusal came from the CLI reading the history, before asking AWS a second time
  assert.equal(
    setUp.rehearsal.front.answered.filter((c) => c.includes("RequestServiceQuotaIncrease")).length,
    answeredBefore + 1,
  );

  const pending = await cli(["quota", "history", "--regions", region]);
  assertExit(pending, 0);
  assert.match(pending.stdout, /us-west-2\s+[0-9a-f]{32}\s+3000\s+PENDING/);

  setUp.rehearsal.quota.decide(region, "APPROVED");
  const approved = await cli(["quota", "history", "--regions", region, "--json"]);
  assertExit(approved, 0);
  const history = JSON.parse(approved.stdout) as unknown;
  assert.match(JSON.stringify(history), /"status":"APPROVED"/);
  assert.match(JSON.stringify(history), /"caseId":"\d{11}"/);
  const raised = await cli(["quota", "get", "--regions", region]);
  assertExit(raised, 0);
  assert.match(raised.stdout, /us-west-2\s+3000\s+625\s+code L-14320ECE/);
});

test("run --dry-run before any deploy: the stack item fails, exit 1, nothing invoked", {
  skip,
  timeout: 120_000,
}, async () => {
  setUp.rehearsal.accountSettings.unreservedConcurrentExecutions = 0;
  try {
    const dry = await cli(["run", "--config", setUp.planFile, "--regions", region, "--dry-run"]);
    assertExit(dry, 1);
    assert.match(dry.all, /ok\s+credentials\s+arn:aws:sts::123456789012:user\/moto/);
    assert.match(dry.all, /ok\s+region\s+us-west-2\s+enabled/);
    assert.match(dry.all, /ok\s+quota\s+us-west-2\s+3000 Mbit\/s in force/);
    assert.match(dry.all, /FAIL\s+stack\s+us-west-2/i);
    assert.match(dry.all, /FAIL\s+concurrency\s+us-west-2/i);
    assert.equal(setUp.rehearsal.bridge.invocations.length, 0);
  } finally {
    setUp.rehearsal.accountSettings.unreservedConcurrentExecutions = 1000;
  }
});

test("deploy: the stack, the agent on the code moto stores, the test object written by the agent's s3-put", {
  skip,
  timeout: 180_000,
}, async (t) => {
  const deploy = await cli(["deploy", "--region", region, "--arch", "x86_64", "--test-object-mib", "16"]);
  assertExit(deploy, 0);
  assert.match(deploy.stdout, /stack lambda-netbench in us-west-2: created/);
  assert.match(deploy.stdout, /test object\s+test-objects\/object-16777216-bytes/);
  const fn = await setUp.rehearsal.moto.lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: "lambda-netbench-agent" }),
  );
  assert.equal(fn.Runtime, "nodejs22.x");
  assert.deepEqual(fn.Architectures, ["x86_64"]);
  assert.equal(fn.MemorySize, 2048);
  // the bridge ran the s3-put on $LATEST at its memory size, on the bytes of this build's bundle
  const put = setUp.rehearsal.bridge.invocations.find((i) => i.probe === "s3-put");
  assert.ok(put, "the test object was written by an Invoke");
  assert.equal(put.qualifier, "$LATEST");
  assert.equal(put.memoryMb, 2048);
  assert.equal(put.codeSha256, fn.CodeSha256);
  assert.deepEqual(readFileSync(put.bundlePath), readFileSync("dist/agent/index.mjs"));
  const bucket = /bucket\s+(\S+)/.exec(deploy.stdout)?.[1] as string;
  const head = await setUp.rehearsal.moto.s3.send(
    new HeadObjectCommand({ Bucket: bucket, Key: "test-objects/object-16777216-bytes" }),
  );
  assert.equal(head.ContentLength, 16 * 1024 * 1024);
  t.diagnostic(
    "moto drops CloudFormation tags on Lambda functions (the function's Tags and the stack's): teardown's tag search cannot meet the function here; its by-name checks do",
  );
  t.diagnostic(
    "moto keeps AWS::S3::BucketPolicy as a placeholder: the deny-without-TLS policy is not enforced here",
  );
});

test("deploy --vpc-subnets: the VPC function beside the agent, in the subnets given", {
  skip,
  timeout: 180_000,
}, async () => {
  const deploy = await cli([
    "deploy",
    "--region",
    region,
    "--arch",
    "x86_64",
    "--test-object-mib",
    "16",
    "--vpc-subnets",
    subnets.slice(0, 2).join(","),
  ]);
  assertExit(deploy, 0);
  assert.match(deploy.stdout, /vpc agent\s+lambda-netbench-agent-vpc in vpc-[0-9a-f]+ \(subnet-/);
  const vpcFn = await setUp.rehearsal.moto.lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: "lambda-netbench-agent-vpc" }),
  );
  assert.deepEqual([...(vpcFn.VpcConfig?.SubnetIds ?? [])].sort(), subnets.slice(0, 2).sort());
  assert.equal(vpcFn.VpcConfig?.SecurityGroupIds?.length, 1);
});

test("deploy --with-server --subnet-id: the server boots (emulated) and answers a handshake at its public address", {
  skip,
  timeout: 180_000,
}, async (t) => {
  const subnet = subnets[0] as string;
  const pricedBefore = setUp.rehearsal.front.answered.filter((c) => c === "pricing GetProducts").length;
  const deploy = await cli([
    "deploy",
    "--region",
    region,
    "--arch",
    "x86_64",
    "--test-object-mib",
    "16",
    "--with-server",
    "--ttl-hours",
    "1",
    "--subnet-id",
    subnet,
  ]);
  assertExit(deploy, 0);
  assert.match(deploy.stdout, /stack lambda-netbench in us-west-2: updated/);
  assert.match(
    deploy.stdout,
    new RegExp(
      `iperf3\\s+${INSTANCE_PUBLIC_ADDRESS.replaceAll(".", "\\.")} ports 5201-5201, RSA auth \\(pkcs1\\)`,
    ),
  );
  assert.equal(setUp.rehearsal.instances.running.length, 1);
  const status = await setUp.rehearsal.moto.ssm.send(
    new GetParameterCommand({ Name: "/lambda-netbench/iperf3/server-status" }),
  );
  assert.equal(JSON.parse(status.Parameter?.Value ?? "{}").instanceId, setUp.rehearsal.instances.running[0]);
  // priced by the Price List API (the rehearsal's answer and figure), asked once, from us-east-1
  assert.match(deploy.all, /EC2 server\s+1\.00 hours of c8gn\.large\s+\$0\.1000\n/);
  assert.match(deploy.all, /source: AWS Price List API \(GetProducts\), retrieved \d{4}-\d\d-\d\d\n/);
  assert.equal(
    setUp.rehearsal.front.answered.filter((c) => c === "pricing GetProducts").length - pricedBefore,
    1,
  );
  assert.match(deploy.all, /keeping the VPC function in subnet-/);
  t.diagnostic(
    "moto cannot update or replace an EC2 instance: a later deploy that moves the server (another subnet, type or AMI) leaves moto's stack unreadable (DescribeStacks: Fn::GetAtt references undefined resource Iperf3Server1), so the rehearsal deploys the server once",
  );
});

test("run --dry-run after deploy: every preflight item passes, nothing is published or invoked", {
  skip,
  timeout: 120_000,
}, async () => {
  const invocations = setUp.rehearsal.bridge.invocations.length;
  const dry = await cli(["run", "--config", setUp.planFile, "--regions", region, "--dry-run"]);
  assertExit(dry, 0);
  for (const item of ["credentials", "region", "quota", "stack", "server", "concurrency"])
    assert.match(dry.all, new RegExp(`ok\\s+${item}\\s`), `${item} passes:\n${dry.all}`);
  assert.match(
    dry.all,
    new RegExp(
      `server\\s+us-west-2\\s+${INSTANCE_PUBLIC_ADDRESS.replaceAll(".", "\\.")} ports 5201-5201 answer iperf3`,
    ),
  );
  assert.match(dry.all, /all checks passed/);
  // the server deployed above, for the run's few minutes (its hour was priced by deploy), and
  // iperf3 traffic at the quota approved above
  assert.match(dry.all, /EC2 server\s+0\.0\d hours of c8gn\.large\s+\$0\.00\d\d\n/);
  assert.match(
    dry.all.replace(/\s+/g, " "),
    /priced: the deployed server \(c8gn\.large\) for the run's 0\.0\d hours; iperf3 traffic at the 3000 Mbit\/s quota in force/,
  );
  assert.match(dry.all, /Total\s+\$\d+\.\d+\n/, "nothing missing from the total");
  assert.match(dry.all, /Dry run: nothing was invoked or created/);
  assert.equal(setUp.rehearsal.bridge.invocations.length, invocations);
  const versions = await setUp.rehearsal.moto.lambda.send(
    new ListVersionsByFunctionCommand({ FunctionName: "lambda-netbench-agent" }),
  );
  assert.deepEqual(
    versions.Versions?.map((v) => v.Version),
    ["$LATEST"],
  );
});

let runDir = "";

test("run: two memory sizes, iperf3 and s3-get, measured in the lab through AwsPlatform", {
  skip,
  timeout: 600_000,
}, async (t) => {
  const lock: BenchLock = await acquireBenchLock(600);
  const out = join(setUp.work, "runs");
  const first = setUp.rehearsal.bridge.invocations.length;
  try {
    const run = await cli(["run", "--config", setUp.planFile, "--regions", region, "--yes", "--out", out], {
      timeoutMs: 300_000,
    });
    assertExit(run, 0);
    assert.match(run.all, /4 of 4 invocations recorded, 0 failed/);
  } finally {
    lock.release();
  }
  const [name] = await readdir(out);
  runDir = join(out, name as string);
  const records = (await readFile(join(runDir, "results.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown> & { detail: Record<string, unknown> });
  const measured = records.filter((r) => r.warmup !== true);
  assert.equal(measured.length, 4);
  for (const record of measured) {
    assert.equal(record.ok, true, JSON.stringify(record.error));
    assert.equal(record.platform, "aws");
    assert.equal(record.target, region);
  }
  // the warm-ups (info) say where they ran: the deployed function's published version, its
  // memory size, on the Node the lab runs the agent on
  const warmups = records.filter((r) => r.warmup === true);
  assert.equal(warmups.length, 2);
  for (const record of warmups) {
    assert.equal(record.detail.functionName, "lambda-netbench-agent");
    assert.match(String(record.detail.functionVersion), /^\d+$/);
    assert.equal(record.detail.nodeVersion, agentNode().version);
    assert.equal(record.detail.memoryLimitMb, record.memoryMb);
    assert.equal(record.detail.region, region);
  }
  if (agentNode().version.startsWith("v22.")) t.diagnostic(`the agent ran on Node ${agentNode().version}`);
  else t.diagnostic(`Node 22 not installed (scripts/setup.sh): the agent ran on ${agentNode().version}`);
  // each memory size ran on its own published version, through its alias
  const bridged = setUp.rehearsal.bridge.invocations.slice(first).filter((i) => i.probe !== "info");
  assert.deepEqual(bridged.map((i) => `${i.qualifier} ${i.memoryMb}`).sort(), [
    "m1024-x86-64 1024",
    "m1024-x86-64 1024",
    "m2048-x86-64 2048",
    "m2048-x86-64 2048",
  ]);
  assert.ok(
    bridged.every((i) => /^\d+$/.test(i.version)),
    "invoked versions are published ones",
  );
  const s3 = measured.filter((r) => r.probe === "s3-get");
  assert.ok(s3.every((r) => r.bytes === 16 * 1024 * 1024));
  const report = JSON.parse(await readFile(join(runDir, "report.json"), "utf8")) as {
    cells: {
      probe: string;
      memoryMb: number;
      sustained: { median: number } | null;
      bytes: { median: number };
      costPerGigabyteUsd: number | null;
    }[];
  };
  const price = lambdaPrice("aws", region, "x86_64");
  assert.ok(price);
  const profileBitsPerSecond = (REHEARSAL_PROFILE.profile.upload[0]?.megabitsPerSecond ?? 0) * 1e6;
  for (const cell of report.cells.filter((c) => c.probe === "iperf3")) {
    const sustained = cell.sustained?.median ?? 0;
    if (shaped)
      assert.ok(
        sustained > 0.8 * profileBitsPerSecond && sustained < 1.12 * profileBitsPerSecond,
        `sustained ${sustained} within the ${REHEARSAL_PROFILE.label} profile (${profileBitsPerSecond} bit/s)`,
      );
    const expected = costPerGigabyte(cell.memoryMb, sustained, cell.bytes.median, price);
    assert.ok(
      Math.abs((cell.costPerGigabyteUsd ?? 0) - expected) < 1e-12,
      `cost per GB at ${cell.memoryMb} MB`,
    );
  }
  const md = await readFile(join(runDir, "report.md"), "utf8");
  assert.match(md, /Cost per GB moved: memory \(GB\) x seconds per GB/);
  assert.ok(existsSync(join(runDir, "report.html")));
  // the run removed the aliases and versions it published
  const versions = await setUp.rehearsal.moto.lambda.send(
    new ListVersionsByFunctionCommand({ FunctionName: "lambda-netbench-agent" }),
  );
  t.diagnostic(`versions left after the run: ${versions.Versions?.map((v) => v.Version).join(", ")}`);
});

test("run killed mid-run, then --resume: every cell recorded once", { skip, timeout: 600_000 }, async () => {
  const out = join(setUp.work, "resumed");
  const lock: BenchLock = await acquireBenchLock(600);
  try {
    let killed = false;
    const first = await cli(["run", "--config", setUp.planFile, "--regions", region, "--yes", "--out", out], {
      timeoutMs: 300_000,
      onSpawn: (child) => {
        child.stderr?.on("data", (chunk: Buffer) => {
          // after the first recorded invocation, as a power cut would
          if (!killed && /\[1\/4\]/.test(chunk.toString())) {
            killed = true;
            child.kill("SIGKILL");
          }
        });
      },
    });
    assert.equal(first.signal, "SIGKILL", first.all);
    const [name] = await readdir(out);
    const dir = join(out, name as string);
    const resumed = await cli(["run", "--resume", dir, "--yes"], { timeoutMs: 300_000 });
    assertExit(resumed, 0);
    const records = (await readFile(join(dir, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map(
        (line) => JSON.parse(line) as { warmup?: boolean; cellId: string; repetition: number; ok: boolean },
      );
    const measured = records.filter((r) => r.warmup !== true);
    assert.equal(measured.length, 4, resumed.all);
    assert.equal(new Set(measured.map((r) => `${r.cellId}#${r.repetition}`)).size, 4);
    assert.ok(measured.every((r) => r.ok));
  } finally {
    lock.release();
  }
});

/** Published versions no alias points at when teardown starts (a killed run's: resume re-points its aliases). */
let versionsForTeardown: string[] = [];

test("schedule create, list, run-now, delete", { skip, timeout: 240_000 }, async (t) => {
  const before = await publishedVersions(setUp.rehearsal);
  const create = await cli([
    "schedule",
    "create",
    "--region",
    region,
    "--config",
    setUp.planFile,
    "--every",
    "rate(1 day)",
  ]);
  assertExit(create, 0);
  assert.match(create.stdout, /schedule rehearsal in us-west-2: created/);
  assert.match(create.stdout, /2 iperf3 task\(s\) recorded as skipped/);
  t.diagnostic(
    "moto keeps AWS::Scheduler::ScheduleGroup and Schedule as placeholders; the rehearsal creates the group and the schedule in it from the nested stack's template, as CloudFormation would (placeholder-schedules.ts)",
  );
  await setUp.rehearsal.ticker.tick();
  // where CloudFormation puts it: in its own group, which carries the tag
  const inGroup = { Name: "lambda-netbench-rehearsal", GroupName: "lambda-netbench-rehearsal" };
  assert.equal((await setUp.rehearsal.moto.scheduler.send(new GetScheduleCommand(inGroup))).State, "ENABLED");
  const published = (await publishedVersions(setUp.rehearsal)).filter((v) => !before.includes(v));
  assert.equal(published.length, 2, `versions ${published.join(", ")} besides ${before.join(", ")}`);
  const list = await cli(["schedule", "list", "--region", region]);
  assertExit(list, 0);
  assert.match(list.stdout, /rehearsal\s+rate\(1 day\)/);
  assert.match(list.stdout, /ENABLED/);
  const runNow = await cli(["schedule", "run-now", "--region", region, "--name", "rehearsal"]);
  assertExit(runNow, 0);
  assert.match(
    runNow.all,
    /arn:aws:states:us-west-2:123456789012:execution:lambda-netbench-rehearsal:run-now-/,
  );
  t.diagnostic(
    "moto's Step Functions starts the execution but does not run its states: no scheduled records are written here",
  );
  const listed = await cli(["schedule", "list", "--region", region]);
  assert.match(listed.stdout, /rehearsal\s+rate\(1 day\)\s+ENABLED\s+last RUNNING \d{4}-\d\d-\d\dT/);
  const del = await cli(["schedule", "delete", "--region", region, "--name", "rehearsal"]);
  assertExit(del, 0);
  assert.match(del.stdout, /schedule rehearsal in us-west-2: deleted \(2 alias\(es\), 3 plan object\(s\)\)/);
  await setUp.rehearsal.ticker.tick();
  await assert.rejects(
    setUp.rehearsal.moto.scheduler.send(new GetScheduleCommand(inGroup)),
    /ResourceNotFound|not found|does not exist/i,
  );
  // the schedule's versions go with its aliases: teardown removes only those left before
  versionsForTeardown = await publishedVersions(setUp.rehearsal);
  assert.deepEqual(versionsForTeardown, before);
  t.diagnostic(
    `versions ${published.join(", ")} deleted with the schedule's aliases; left for teardown: ${before.join(", ") || "none"}`,
  );
  const empty = await cli(["schedule", "list", "--region", region]);
  assert.match(empty.stdout, /no schedules in us-west-2/);
  assert.deepEqual(setUp.rehearsal.ticker.problems, []);
});

test("runs pull: nothing scheduled has run, nothing pulled", { skip, timeout: 120_000 }, async (t) => {
  const pull = await cli(["runs", "pull", "--region", region, "--out", join(setUp.work, "pulled")]);
  assertExit(pull, 0);
  assert.match(pull.stdout, /0 run\(s\) pulled, 0 already complete locally/);
  t.diagnostic(
    "no scheduled run wrote records (moto's Step Functions does not execute), so only the empty pull is rehearsed",
  );
});

test("teardown: the command verifies, and a look at every service the tool touched finds nothing of ours", {
  skip,
  timeout: 240_000,
}, async (t) => {
  const teardown = await cli(["teardown", "--region", region]);
  assertExit(teardown, 0);
  assert.match(teardown.stdout, new RegExp(`stack deleted; ${versionsForTeardown.length} version\\(s\\)`));
  assert.deepEqual(await publishedVersions(setUp.rehearsal), []);
  assert.match(teardown.stdout, /verified: nothing tagged lambda-netbench remains in this region/);
  assert.match(teardown.stdout, /verified gone by name: .*role lambda-netbench-AgentRole-/);
  assert.match(teardown.stdout, /stays at 3000 Mbit\/s/);
  await setUp.rehearsal.ticker.tick();
  assert.deepEqual(await findLeftovers(setUp.rehearsal.moto.url, region), []);
  assert.deepEqual(setUp.rehearsal.instances.running, []);
  assert.deepEqual(setUp.rehearsal.ticker.problems, []);
  t.diagnostic(`moto calls that failed during the rehearsal: ${setUp.rehearsal.front.motoFailures.length}`);
  for (const failure of setUp.rehearsal.front.motoFailures) t.diagnostic(failure);
  // the bundle the bridge ran is the deployed zip's: one code hash for every invocation
  assert.equal(new Set(setUp.rehearsal.bridge.invocations.map((i) => i.codeSha256)).size, 1);
  const zipSha = createHash("sha256")
    .update(readFileSync(setUp.rehearsal.bridge.invocations[0]?.zipPath ?? ""))
    .digest("base64");
  assert.equal(zipSha, setUp.rehearsal.bridge.invocations[0]?.codeSha256);
});
