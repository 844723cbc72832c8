import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import {
  operatorPolicy,
  plannedCallActions,
  stackResourceActions,
} from "../../../src/platforms/aws/operator-policy.js";
import { buildStackTemplate } from "../../../src/platforms/aws/stack-template.js";

const clientService: Record<string, string> = {
  "client-cloudformation": "CloudFormation",
  "client-ec2": "EC2",
  "client-lambda": "Lambda",
  "client-s3": "S3",
  "client-ssm": "SSM",
  "client-service-quotas": "ServiceQuotas",
  "client-resource-groups-tagging-api": "ResourceGroupsTaggingAPI",
  "client-sts": "STS",
  "client-iam": "IAM",
  "client-cloudwatch-logs": "CloudWatchLogs",
};

/**
 * Every AWS call in the code, as the planned-call recorder names it ("Service.Operation"): each
 * `XCommand` imported from an @aws-sdk client package, plus the waiter's GetFunction.
 */
function callsInCode(): Set<string> {
  const dir = new URL("../../../src/platforms/aws/", import.meta.url).pathname;
  const calls = new Set<string>(["Lambda.GetFunction"]);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    const text = readFileSync(dir + file, "utf8");
    for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@aws-sdk\/(client-[a-z-]+)"/g)) {
      const service = clientService[match[2] as string];
      assert.ok(service, `unknown client package ${match[2]} in ${file}`);
      for (const name of (match[1] as string).split(","))
        for (const command of name.matchAll(/\b([A-Z]\w+)Command\b/g))
          if (!name.includes("type ")) calls.add(`${service}.${command[1]}`);
    }
  }
  return calls;
}

test("every call the code makes has its IAM actions in the operator policy", () => {
  const calls = callsInCode();
  assert.ok(
    calls.has("CloudFormation.CreateStack") &&
      calls.has("Lambda.Invoke") &&
      calls.has("STS.GetCallerIdentity"),
  );
  const missing = [...calls].filter((call) => !(call in plannedCallActions));
  assert.deepEqual(missing, [], "add them to plannedCallActions in operator-policy.ts");
  const granted = new Set(operatorPolicy().Statement.flatMap((s) => s.Action));
  for (const call of calls)
    for (const action of plannedCallActions[call]?.actions ?? [])
      assert.ok(granted.has(action), `${call}: ${action}`);
});

test("CloudFormation's create/update/rollback/delete needs for every resource type of the stack", () => {
  const template = buildStackTemplate({
    agentCodeKey: "agent/x.zip",
    arch: "arm64",
    memoryMb: 1024,
    timeoutSeconds: 900,
    server: {
      instanceType: "c8gn.large",
      ports: 1,
      generation: 1,
      expiresAt: "2026-11-30T00:00:00Z",
      idleTimeoutSeconds: 30,
      imageId: "ami-0123456789abcdef0",
      vpcId: "vpc-0123456789abcdef0",
      subnetId: "subnet-0123456789abcdef0",
    },
  });
  const types = new Set(Object.values(template.Resources).map((r) => r.Type));
  const granted = new Set(operatorPolicy().Statement.flatMap((s) => s.Action));
  for (const type of types) {
    assert.ok(stackResourceActions[type], `no CloudFormation needs listed for ${type}`);
    for (const entry of stackResourceActions[type] ?? [])
      for (const action of entry.actions) assert.ok(granted.has(action), action);
  }
  for (const needed of [
    "iam:CreateRole",
    "iam:DeleteRole",
    "lambda:DeleteFunction",
    "ec2:TerminateInstances",
    "s3:DeleteBucket",
    "logs:DeleteLogGroup",
  ])
    assert.ok(granted.has(needed), `${needed} (rollback and delete)`);
});

test("shape: Version 2012-10-17, no wildcard action, PassRole only for our roles and services", () => {
  const policy = operatorPolicy();
  assert.equal(policy.Version, "2012-10-17");
  for (const statement of policy.Statement) {
    assert.equal(statement.Effect, "Allow");
    for (const action of statement.Action)
      assert.match(action, /^[a-z0-9-]+:[A-Za-z0-9]+$/, `no wildcard: ${action}`);
  }
  const passRole = policy.Statement.filter((s) => s.Action.includes("iam:PassRole"));
  assert.equal(passRole.length, 1);
  assert.equal(passRole[0]?.Resource, "arn:aws:iam::*:role/lambda-netbench-*");
  assert.deepEqual(passRole[0]?.Condition, {
    StringEquals: { "iam:PassedToService": ["lambda.amazonaws.com", "ec2.amazonaws.com"] },
  });
  const iamStatements = policy.Statement.filter((s) => s.Action.some((a) => a.startsWith("iam:")));
  for (const statement of iamStatements) assert.notEqual(statement.Resource, "*", statement.Sid);
});

test("deploy --print-operator-policy prints the JSON, no AWS call", {
  skip: !readdirSync(new URL("../../../dist/", import.meta.url)).length,
}, () => {
  const cli = new URL("../../../bin/lambda-netbench.js", import.meta.url).pathname;
  const run = spawnSync(process.execPath, [cli, "deploy", "--print-operator-policy"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", AWS_EC2_METADATA_DISABLED: "true" },
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), operatorPolicy());
});
