// The preflight from behind corporate egress (issue 29 item 3), rehearsed: the real CLI against
// moto, with the server published at an address this machine cannot reach (nothing listens on
// it here) while the lab's environments, standing in for Lambda, reach the server by it. The
// preflight's own handshake to TCP 5201 fails; a real run then asks the agent function (the
// tcp-connect event on $LATEST), a dry run does not. Neither writes anything.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DescribeSubnetsCommand } from "@aws-sdk/client-ec2";
import { ListFunctionsCommand } from "@aws-sdk/client-lambda";
import {
  assertExit,
  INSTANCE_PUBLIC_ADDRESS,
  publishedVersions,
  REHEARSAL_REGION,
  rehearsalSkip,
  runCli,
  useRehearsal,
  writes,
} from "./rehearsal.js";

const skip = rehearsalSkip();
const region = REHEARSAL_REGION;
/** Where the stack publishes the server in these tests: on this machine's loopback, nothing listens there. */
const blockedAddress = "127.42.0.9";

const setUp = useRehearsal(skip, {
  name: "egress",
  memoryMb: [1024],
  warmup: false,
  probes: ["{ kind: iperf3, timeSeconds: 5, parallel: 1, direction: upload }"],
});

async function cli(args: string[]) {
  const mark = setUp.rehearsal.front.faults.calls.length;
  const invoked = setUp.rehearsal.bridge.invocations.length;
  const result = await runCli(setUp.rehearsal, args, { timeoutMs: 200_000 });
  return {
    ...result,
    calls: setUp.rehearsal.front.faults.calls.slice(mark),
    invocations: setUp.rehearsal.bridge.invocations.slice(invoked),
    all: `${result.stdout}\n${result.stderr}`,
    /** The text as read, whatever the wrapping. */
    flat: `${result.stdout}\n${result.stderr}`.replace(/\s+/g, " "),
  };
}

/** deploy in the rehearsal's region, x86_64, no test object (the plan runs iperf3 only). */
const deployArgs = (...extra: string[]) => [
  ...["deploy", "--region", region, "--arch", "x86_64", "--test-object-mib", "0"],
  ...extra,
];

async function defaultSubnet(): Promise<string> {
  const described = await setUp.rehearsal.moto.ec2.send(new DescribeSubnetsCommand({}));
  return (described.Subnets ?? []).find((s) => s.DefaultForAz)?.SubnetId as string;
}

test("deploy --with-server: the server answers at its public address", {
  skip,
  timeout: 240_000,
}, async () => {
  const subnet = await defaultSubnet();
  // the function first, then the server, as the walkthrough does (docs/aws.md)
  assertExit(await cli(deployArgs()), 0);
  const deploy = await cli(deployArgs("--with-server", "--ttl-hours", "1", "--subnet-id", subnet));
  assert.deepEqual(setUp.rehearsal.ticker.problems, [], "the emulated instance booted");
  assertExit(deploy, 0);
  assert.match(
    deploy.stdout,
    new RegExp(`iperf3\\s+${INSTANCE_PUBLIC_ADDRESS.replaceAll(".", "\\.")} ports 5201-5201`),
  );
  // from here on, the stack publishes the server where this machine cannot reach it
  setUp.rehearsal.front.publishServerAt(blockedAddress);
  setUp.rehearsal.bridge.serverAliases.add(blockedAddress);
});

test("run --dry-run behind egress that blocks TCP 5201: the server unchecked, nothing invoked, nothing written", {
  skip,
  timeout: 120_000,
}, async () => {
  const dry = await cli(["run", "--config", setUp.planFile, "--regions", region, "--dry-run"]);
  assertExit(dry, 0);
  assert.match(
    dry.flat,
    /-- server us-west-2 the server reported every port answering iperf3 on itself, but from this machine 127\.42\.0\.9:5201 does not answer an iperf3 handshake \([^)]+\): .*a dry run does not invoke the function to ask it; the run goes on/,
  );
  assert.match(dry.all, /all checks passed/);
  assert.deepEqual(dry.invocations, []);
  assert.deepEqual(writes(dry.calls), [], dry.all);
});

test("run behind that egress: the preflight asks the agent function, which reaches the server; one Invoke, nothing written", {
  skip,
  timeout: 120_000,
}, async () => {
  // without --yes and without a terminal the run stops at its confirmation, after the preflight
  const run = await cli(["run", "--config", setUp.planFile, "--regions", region]);
  assertExit(run, 1);
  assert.match(
    run.flat,
    /ok server us-west-2 127\.42\.0\.9:5201 reached from the agent function \(TCP connect in \d+ ms; from this machine 127\.42\.0\.9:5201 does not answer an iperf3 handshake \([^)]+\), as corporate egress often does\); ports 5201-5201/,
  );
  assert.match(run.all, /all checks passed/);
  assert.match(run.all, /pass --yes to run on AWS without a terminal to confirm in/);
  assert.deepEqual(
    run.invocations.map((i) => `${i.functionName}:${i.qualifier} ${i.probe}`),
    ["lambda-netbench-agent:$LATEST tcp-connect"],
  );
  assert.equal(run.invocations[0]?.outcome.response?.ok, true);
  // the Invoke is the only call that is not a read: no version, alias or configuration change
  assert.deepEqual(writes(run.calls), ["lambda Invoke"], run.all);
  assert.deepEqual(await publishedVersions(setUp.rehearsal), []);
});

test("run where the function cannot reach the server either: the preflight fails naming both, nothing else invoked or written", {
  skip,
  timeout: 120_000,
}, async () => {
  // the lab's environments now connect to the blocked address as published: nothing listens there either
  setUp.rehearsal.bridge.serverAliases.delete(blockedAddress);
  try {
    const run = await cli(["run", "--config", setUp.planFile, "--regions", region, "--yes"]);
    assertExit(run, 1);
    assert.match(
      run.flat,
      /FAIL server us-west-2 the server reported every port answering iperf3 on itself, but neither this machine \([^)]+\) nor the agent function \([^)]*ECONNREFUSED[^)]*\) connects to 127\.42\.0\.9:5201/,
    );
    assert.match(run.all, /the preflight failed \(above\)/);
    assert.deepEqual(
      run.invocations.map((i) => i.probe),
      ["tcp-connect"],
    );
    assert.deepEqual(writes(run.calls), ["lambda Invoke"], run.all);
    assert.deepEqual(await publishedVersions(setUp.rehearsal), []);
  } finally {
    setUp.rehearsal.front.publishServerAt(INSTANCE_PUBLIC_ADDRESS);
  }
});

test("deploy --vpc-only: the function outside a VPC goes, the VPC one stays; a run of cells outside a VPC is refused before anything changes", {
  skip,
  timeout: 240_000,
}, async () => {
  const subnet = await defaultSubnet();
  const base = deployArgs("--remove-server");
  const refused = await cli([...base, "--vpc-only"]);
  assertExit(refused, 2);
  assert.match(refused.all, /vpc-only: needs the VPC function: pass --vpc-subnets/);
  const deploy = await cli([...base, "--vpc-only", "--vpc-subnets", subnet]);
  assertExit(deploy, 0);
  assert.match(deploy.stdout, /vpc only\s+no function outside a VPC/);
  const functions = await setUp.rehearsal.moto.lambda.send(new ListFunctionsCommand({}));
  assert.deepEqual((functions.Functions ?? []).map((f) => f.FunctionName).sort(), [
    "lambda-netbench-agent-vpc",
  ]);
  const invokedBefore = setUp.rehearsal.bridge.invocations.length;
  // the preflight says so, before anything is invoked or written
  const run = await cli(["run", "--config", setUp.planFile, "--regions", region, "--yes"]);
  assertExit(run, 1);
  assert.match(
    run.flat,
    /FAIL stack us-west-2 vpc: the lambda-netbench stack in us-west-2 was deployed with --vpc-only \(no function outside a VPC\), but the plan runs cells outside a VPC/,
  );
  assert.equal(setUp.rehearsal.bridge.invocations.length, invokedBefore, "nothing invoked");
  assert.deepEqual(writes(run.calls), [], run.all);
});
