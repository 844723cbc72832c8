import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { GetRoleCommand, ListRolesCommand } from "@aws-sdk/client-iam";
import { addScheduleStack } from "../../../src/platforms/aws/nested-stacks.js";
import {
  declaredCalls,
  declaredResourceActions,
  operatorPolicies,
  operatorPolicy,
  splitPolicy,
} from "../../../src/platforms/aws/operator-policy.js";
import { UndeclaredAwsCallError } from "../../../src/platforms/aws/planned-calls.js";
import { buildStackTemplate } from "../../../src/platforms/aws/stack-template.js";
import { withScheduleClients } from "../../../src/scheduled-studies/schedule-clients.js";
import { buildScheduleTemplate } from "../../../src/scheduled-studies/schedule-template.js";
import { AwsStub, queryError, stubbedClients, testCredentials } from "./aws-stub.js";

/**
 * The operator policy cannot drift from the code: the policy is built from one declared list of
 * the AWS calls the tool makes (declaredCalls), every SDK client checks each call against that
 * list before sending it (so every stubbed deploy / run / teardown / schedule / quota test in
 * the suite fails on an undeclared call), and here the list is compared with the commands the
 * code contains, both ways.
 */

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
  "client-sfn": "SFN",
  "client-scheduler": "Scheduler",
  "client-pricing": "Pricing",
};

/** Files whose calls run inside Lambda with the function's own role, not the operator's. */
const insideLambda = new Set(["recorder-lambda.ts"]);

function sourceFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name), base)
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name).slice(base.length + 1)]
        : [],
  );
}

/** "Service.Operation" of every `XCommand` and `paginateX` the operator's code imports from an @aws-sdk client. */
function callsInCode(): Set<string> {
  const calls = new Set<string>(["Lambda.GetFunction"]); // the Lambda waiter's call
  for (const root of [
    "../../../src/platforms/aws/",
    "../../../src/scheduled-studies/",
    "../../../src/cli/",
  ]) {
    const dir = new URL(root, import.meta.url).pathname.replace(/\/$/, "");
    for (const file of sourceFiles(dir)) {
      if (insideLambda.has(file)) continue;
      const text = readFileSync(join(dir, file), "utf8");
      for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@aws-sdk\/(client-[a-z0-9-]+)"/g)) {
        const service = clientService[match[2] as string];
        assert.ok(service, `unknown client package ${match[2]} in ${file}`);
        for (const name of (match[1] as string).split(",")) {
          if (/\btype\b/.test(name)) continue;
          for (const command of name.matchAll(/\b([A-Z]\w+)Command\b/g))
            calls.add(`${service}.${command[1]}`);
          // an SDK paginator (paginateListAliases) sends its operation's command page by page
          for (const paginator of name.matchAll(/\bpaginate([A-Z]\w+)\b/g))
            calls.add(`${service}.${paginator[1]}`);
        }
      }
    }
  }
  return calls;
}

const granted = () => new Set(operatorPolicy().Statement.flatMap((s) => s.Action));

test("the declared calls are exactly the commands in the code (S3, EC2, schedules included)", () => {
  const inCode = callsInCode();
  for (const call of [
    "CloudFormation.CreateStack",
    "Lambda.Invoke",
    "STS.GetCallerIdentity",
    "S3.ListObjectsV2",
    "EC2.DescribeSubnets",
    "CloudFormation.GetTemplate",
    "SFN.StartExecution",
    "Scheduler.ListSchedules",
    "Lambda.ListVersionsByFunction", // called through its SDK paginator only
  ])
    assert.ok(inCode.has(call), `the scan finds ${call}`);
  const declared = declaredCalls();
  const undeclared = [...inCode].filter((call) => !(call in declared));
  assert.deepEqual(undeclared, [], "declare them in operator-policy.ts or schedule-policy.ts");
  const stale = Object.keys(declared).filter((call) => !inCode.has(call));
  assert.deepEqual(stale, [], "declared but no longer called: remove them");
});

test("every SDK client of the operator's code is built where the declared-call check is attached", () => {
  const attached = new Set(["aws-clients.ts", "schedule-clients.ts"]);
  for (const root of [
    "../../../src/platforms/aws/",
    "../../../src/scheduled-studies/",
    "../../../src/cli/",
  ]) {
    const dir = new URL(root, import.meta.url).pathname.replace(/\/$/, "");
    for (const file of sourceFiles(dir)) {
      if (insideLambda.has(file) || attached.has(file)) continue;
      const text = readFileSync(join(dir, file), "utf8");
      const built = [...text.matchAll(/new\s+([A-Z]\w*Client)\s*\(/g)]
        .map((match) => match[1] as string)
        .filter((name) => !["MultipartUploadClient"].includes(name));
      assert.deepEqual(
        built,
        [],
        `${file} builds its own SDK client: use createAwsClients / withScheduleClients`,
      );
    }
  }
});

test("the policy grants exactly the declared calls' actions and CloudFormation's needs, nothing else", () => {
  const expected = new Set<string>();
  for (const entry of Object.values(declaredCalls()))
    for (const action of entry.actions) expected.add(action);
  for (const table of declaredResourceActions())
    for (const entries of Object.values(table))
      for (const entry of entries) for (const action of entry.actions) expected.add(action);
  assert.deepEqual([...granted()].sort(), [...expected].sort());
  for (const action of [
    "cloudformation:GetTemplate",
    "scheduler:ListSchedules",
    "scheduler:GetSchedule",
    "scheduler:CreateSchedule",
    "states:StartExecution",
    "states:ListExecutions",
    "states:CreateStateMachine",
    "s3:ListBucket",
  ])
    assert.ok(expected.has(action), action);
});

test("every client refuses an undeclared call before sending it", async () => {
  const stub = new AwsStub().on(
    "GetRole",
    queryError("NoSuchEntity", "The role with name x cannot be found.", 404),
  );
  const clients = stubbedClients(stub);
  await assert.rejects(clients.iam.send(new ListRolesCommand({})), (error: unknown) => {
    assert.ok(error instanceof UndeclaredAwsCallError);
    assert.equal(error.call, "IAM.ListRoles");
    assert.match(error.message, /operator-policy\.ts/);
    return true;
  });
  assert.deepEqual(stub.operations(), [], "nothing was sent");
  // a declared call goes through (and AWS's answer comes back as usual)
  await assert.rejects(clients.iam.send(new GetRoleCommand({ RoleName: "x" })), {
    name: "NoSuchEntityException",
  });
  assert.deepEqual(stub.operations(), ["GetRole"]);
  // the schedule's clients too, in a dry run as well
  const dry = withScheduleClients(stubbedClients(stub, { dryRun: true }), {
    credentials: testCredentials,
    requestHandler: stub.handler,
  });
  const { DeleteStateMachineCommand } = await import("@aws-sdk/client-sfn");
  await assert.rejects(
    dry.sfn.send(
      new DeleteStateMachineCommand({ stateMachineArn: "arn:aws:states:us-west-2:1:stateMachine:x" }),
    ),
    UndeclaredAwsCallError,
  );
});

const serverOptions = {
  instanceType: "c8gn.large",
  ports: 1,
  generation: 1,
  expiresAt: "2026-11-30T00:00:00Z",
  idleTimeoutSeconds: 30,
  imageId: "ami-0123456789abcdef0",
  vpcId: "vpc-0123456789abcdef0",
  subnetId: "subnet-0123456789abcdef0",
};

test("CloudFormation's create/update/rollback/delete needs for every resource type, the schedule's nested stack included", () => {
  const region = buildStackTemplate({
    agentCodeKey: "agent/x.zip",
    arch: "arm64",
    memoryMb: 1024,
    timeoutSeconds: 900,
    server: serverOptions,
  });
  const withSchedule = addScheduleStack(region, {
    name: "daily",
    templateKey: "schedules/daily/template-0123.json",
    recorderCodeKey: "agent/recorder-0123.zip",
  });
  const schedule = buildScheduleTemplate({
    name: "daily",
    expression: "rate(1 day)",
    timezone: "UTC",
    variants: [{ memoryMb: 1024, arch: "arm64" }],
    maxConcurrency: 2,
    mode: "distributed",
    agentTimeoutSeconds: 900,
  });
  const [regionTable, scheduleTable] = declaredResourceActions() as [
    ReturnType<typeof declaredResourceActions>[number],
    ReturnType<typeof declaredResourceActions>[number],
  ];
  const all = granted();
  const check = (template: typeof region, table: typeof regionTable) => {
    for (const type of new Set(Object.values(template.Resources).map((r) => r.Type))) {
      assert.ok(table[type], `no CloudFormation needs listed for ${type}`);
      for (const entry of table[type] ?? [])
        for (const action of entry.actions) assert.ok(all.has(action), action);
    }
  };
  check(withSchedule, {
    ...regionTable,
    "AWS::CloudFormation::Stack": scheduleTable["AWS::CloudFormation::Stack"] ?? [],
  });
  check(schedule, scheduleTable);
  for (const needed of [
    "iam:CreateRole",
    "iam:DeleteRole",
    "lambda:DeleteFunction",
    "ec2:TerminateInstances",
    "s3:DeleteBucket",
    "logs:DeleteLogGroup",
    "states:DeleteStateMachine",
    "scheduler:DeleteSchedule",
    "cloudformation:DeleteStack",
  ])
    assert.ok(all.has(needed), `${needed} (rollback and delete)`);
});

test("shape: Version 2012-10-17, no wildcard action, PassRole only for our roles and their services, our resources only", () => {
  const policy = operatorPolicy();
  assert.equal(policy.Version, "2012-10-17");
  const sids = policy.Statement.map((s) => s.Sid);
  assert.equal(new Set(sids).size, sids.length, "Sids are unique");
  for (const statement of policy.Statement) {
    assert.equal(statement.Effect, "Allow");
    for (const action of statement.Action)
      assert.match(action, /^[a-z0-9-]+:[A-Za-z0-9]+$/, `no wildcard: ${action}`);
  }
  const passRole = policy.Statement.filter((s) => s.Action.includes("iam:PassRole"));
  assert.deepEqual(
    passRole.map((s) => [s.Sid, s.Action, s.Resource, s.Condition]),
    [
      [
        "PassOwnRoles",
        ["iam:PassRole"],
        "arn:aws:iam::*:role/lambda-netbench-*",
        { StringEquals: { "iam:PassedToService": ["lambda.amazonaws.com", "ec2.amazonaws.com"] } },
      ],
      [
        "PassScheduleRoles",
        ["iam:PassRole"],
        "arn:aws:iam::*:role/lambda-netbench-Schedule*",
        {
          StringEquals: {
            "iam:PassedToService": [
              "lambda.amazonaws.com",
              "states.amazonaws.com",
              "scheduler.amazonaws.com",
            ],
          },
        },
      ],
    ],
  );
  // nothing that changes IAM, Step Functions, the scheduler, Lambda or logs applies to "*"
  for (const statement of policy.Statement) {
    const changes = statement.Action.filter((a) =>
      /^(iam|states|scheduler|lambda|logs|cloudformation|ssm):(?!(Describe|List|Get))/.test(a),
    );
    if (changes.length > 0) assert.notEqual(statement.Resource, "*", `${statement.Sid}: ${changes}`);
  }
  const start = policy.Statement.find((s) => s.Action.includes("states:StartExecution"));
  assert.deepEqual(start?.Resource, [
    "arn:aws:states:*:*:stateMachine:lambda-netbench-*",
    "arn:aws:states:*:*:execution:lambda-netbench-*:*",
  ]);
  const logs = policy.Statement.filter((s) => s.Action.includes("logs:DeleteLogGroup")).flatMap((s) =>
    Array.isArray(s.Resource) ? s.Resource : [s.Resource],
  );
  for (const resource of [
    "arn:aws:logs:*:*:log-group:/aws/lambda/lambda-netbench-agent",
    "arn:aws:logs:*:*:log-group:/aws/lambda/lambda-netbench-*-recorder",
  ])
    assert.ok(logs.includes(resource), resource);
  for (const resource of logs)
    assert.match(resource, /^arn:aws:logs:\*:\*:log-group:\/aws\/lambda\/lambda-netbench-/);
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
  const printed = JSON.parse(run.stdout) as Array<{ PolicyName: string; PolicyDocument: unknown }>;
  assert.deepEqual(
    printed.map((p) => p.PolicyDocument),
    operatorPolicies().map((p) => p.document),
  );
  // how to attach them, on stderr so stdout stays one JSON document
  assert.match(run.stderr, /aws iam create-policy --policy-name lambda-netbench-operator-1 /);
  assert.match(run.stderr, /aws iam attach-role-policy/);
});

test("the operator policy is printed as managed policies that each fit IAM's 6,144 characters", () => {
  const whole = operatorPolicy();
  const parts = operatorPolicies();
  assert.ok(parts.length >= 2, "one document is over the limit, so it must be split");
  for (const part of parts) {
    // IAM counts every character but white space
    const size = JSON.stringify(part.document).replace(/\s/g, "").length;
    assert.ok(size <= 6_144, `${part.name} is ${size} characters`);
    assert.match(part.name, /^lambda-netbench-operator-\d$/);
  }
  // nothing lost, nothing doubled
  assert.deepEqual(
    parts.flatMap((p) => p.document.Statement.map((s) => s.Sid)).sort(),
    whole.Statement.map((s) => s.Sid).sort(),
  );
  assert.throws(() => splitPolicy(whole, 100), /statement \w+ alone is \d+ characters/);
});
