// biome-ignore-all lint/suspicious/noExplicitAny: reads raw SDK transport objects and stubbed JSON
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { buildStackTemplate } from "../../src/platforms/aws/stack-template.js";
import { readManifest, readRecords } from "../../src/results/run-directory.js";
import {
  type AwsStub,
  describeStacks,
  json,
  queryXml,
  restJson,
  restJsonError,
  type StubbedCli,
  stackDoesNotExist,
  useStubbedAws,
} from "../platforms/aws/aws-stub.js";

/**
 * schedule create/list/delete/run-now and runs pull end to end: options -> real SDK clients
 * (CloudFormation, Lambda, S3, Step Functions, EventBridge Scheduler) -> stubbed transport with
 * AWS's real response and error shapes -> what the user sees.
 */
const outputs = {
  BucketName: "lambda-netbench-bucket-1a2b3c",
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/abc.zip",
  FunctionArchitecture: "arm64",
};
const config = (memory: number) => ({
  FunctionName: "lambda-netbench-agent",
  FunctionArn: "arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent",
  Runtime: "nodejs22.x",
  MemorySize: memory,
  Timeout: 900,
  Architectures: ["arm64"],
  State: "Active",
  LastUpdateStatus: "Successful",
});
const stateMachineArn = "arn:aws:states:us-west-2:123456789012:stateMachine:lambda-netbench-seed";
const regionTemplate = buildStackTemplate({
  agentCodeKey: "agent/abc.zip",
  arch: "arm64",
  memoryMb: 2048,
  timeoutSeconds: 900,
  server: null,
});

const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const getTemplate = (template: unknown) =>
  queryXml(
    "GetTemplate",
    `<TemplateBody>${escapeXml(JSON.stringify(template))}</TemplateBody><StagesAvailable><member>Original</member><member>Processed</member></StagesAvailable>`,
  );
const s3Xml = (body: string, statusCode = 200) => ({
  statusCode,
  headers: { "content-type": "application/xml" },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});
const noSuchKey = s3Xml(
  "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>",
  404,
);
const listing = (prefixes: string[], keys: string[]) =>
  s3Xml(
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${outputs.BucketName}</Name><KeyCount>${prefixes.length + keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${keys.map((key) => `<Contents><Key>${key}</Key><Size>10</Size></Contents>`).join("")}${prefixes.map((p) => `<CommonPrefixes><Prefix>${p}</Prefix></CommonPrefixes>`).join("")}</ListBucketResult>`,
  );
const schedulerError = (type: string, message: string, statusCode: number) => ({
  statusCode,
  headers: { "content-type": "application/json", "x-amzn-errortype": type },
  body: JSON.stringify({ Message: message }),
});

describe("schedule and runs commands on the stubbed transport", () => {
  let stub: AwsStub;
  let out: string[];
  let run: StubbedCli;
  let bodies: Map<string, string>;
  useStubbedAws(
    (session) => {
      ({ stub, out, run } = session);
      bodies = new Map();
      const handle = stub.handler.handle;
      (stub.handler as any).handle = async (request: any) => {
        if (typeof request.body === "string") bodies.set(`${request.method} ${request.path}`, request.body);
        return handle(request);
      };
    },
    { fast: true },
  );

  test("create: bad input is refused before any AWS call", async () => {
    await assert.rejects(
      run("schedule", "create", "--region", "us-west-2", "--preset", "seed", "--every", "rate(1 days)"),
      /every: .*singular/,
    );
    await assert.rejects(
      run("schedule", "create", "--region", "us-west-2", "--preset", "nope", "--every", "rate(1 day)"),
      /unknown preset "nope"/,
    );
    await assert.rejects(
      run("schedule", "create", "--region", "mars-1", "--preset", "seed", "--every", "rate(1 day)"),
      /region: unknown region/,
    );
    await assert.rejects(
      run(
        "schedule",
        "create",
        "--region",
        "us-west-2",
        "--preset",
        "seed",
        "--every",
        "rate(1 day)",
        "--name",
        "Daily!",
      ),
      /name: "Daily!" is not allowed/,
    );
    await assert.rejects(
      run(
        "schedule",
        "create",
        "--region",
        "us-west-2",
        "--preset",
        "seed",
        "--every",
        "rate(1 day)",
        "--timezone",
        "Mars/Olympus",
      ),
      /timezone: "Mars\/Olympus" is not an IANA time zone/,
    );
    assert.deepEqual(stub.requests, []);
  });

  test("create without the region's stack says to deploy first", async () => {
    stub.on("DescribeStacks", stackDoesNotExist);
    await assert.rejects(
      run("schedule", "create", "--region", "us-west-2", "--preset", "seed", "--every", "rate(1 day)"),
      /no usable lambda-netbench stack in us-west-2: run `lambda-netbench deploy --region us-west-2` first/,
    );
    assert.deepEqual(stub.operations(), ["DescribeStacks"]);
  });

  test("create: aliases, the expanded cells in the bucket, the nested stack added to the region's stack", async () => {
    const boundary = "arn:aws:iam::123456789012:policy/OrgBoundary";
    stub
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", { ...outputs, PermissionsBoundaryArn: boundary }),
      )
      .on("GetFunctionConfiguration", restJson(config(2048)))
      .on("UpdateFunctionConfiguration", (request) => restJson(config(Number(request.input.MemorySize))))
      .on("GetFunction", restJson({ Configuration: config(2048) }))
      .on("PublishVersion", restJson({ ...config(1024), MemorySize: undefined, Version: "7" }, 201))
      .on("GetAlias", restJsonError("ResourceNotFoundException", "Cannot find alias arn", 404))
      .on("CreateAlias", (request) =>
        restJson({ Name: request.input.Name, FunctionVersion: request.input.FunctionVersion }, 201),
      )
      .on("PutObject", { statusCode: 200, headers: { etag: '"e"' }, body: "" })
      .on("HeadObject", { statusCode: 404, headers: {}, body: "" })
      .on("GetTemplate", getTemplate(regionTemplate))
      .on(
        "UpdateStack",
        queryXml(
          "UpdateStack",
          `<StackId>arn:aws:cloudformation:us-west-2:123456789012:stack/lambda-netbench/x</StackId>`,
        ),
      );
    await run(
      "schedule",
      "create",
      "--region",
      "us-west-2",
      "--preset",
      "seed",
      "--every",
      "rate(1 day)",
      "--parallelism",
      "1",
    );
    const text = out.join("\n");
    assert.match(text, /schedule seed in us-west-2: created/);
    assert.match(text, /inline Map, 1 at once/);
    assert.match(
      text,
      /per run +6 warm-up\(s\) \+ 42 invocation\(s\), 18 iperf3 task\(s\) recorded as skipped/,
    );
    assert.match(
      text,
      /cost per run +Lambda ~\$[\d.]+ \(\d+ invocations, \d+ GB-s, upper estimate\); Step Functions 232 state transitions/,
    );
    const aliases = stub.requests.filter((r) => r.operation === "CreateAlias").map((r) => r.input.Name);
    assert.deepEqual(
      aliases.filter((name) => String(name).startsWith("s-seed-")),
      [1024, 2048, 3072, 5120, 8192, 10240].map((m) => `s-seed-m${m}-arm64`),
      "the schedule's own aliases, apart from run's",
    );
    assert.deepEqual(
      aliases.filter((name) => !String(name).startsWith("s-seed-")),
      [],
      "no run alias left behind: the schedule points only its own",
    );
    const memory = stub.requests
      .filter((r) => r.operation === "UpdateFunctionConfiguration")
      .map((r) => r.input.MemorySize);
    assert.equal(
      memory.at(-1),
      2048,
      "$LATEST back at the memory it had (the template's), not the last size",
    );
    const execution = JSON.parse(bodies.get("PUT /schedules/seed/execution.json") ?? "null");
    assert.equal(execution.mode, "inline");
    assert.equal(execution.tasks.length, 42);
    assert.equal(execution.warmups.length, 6);
    assert.deepEqual(execution.testObjectBytes, [1_073_741_824]);
    const iperf3 = execution.tasks.filter((t: any) => t.cell.probe.kind === "iperf3");
    assert.ok(
      iperf3.every(
        (t: any) => t.event === null && /^skipped: scheduled runs keep no iperf3 server/.test(t.skip.message),
      ),
    );
    const get = execution.tasks.find((t: any) => t.cell.probe.kind === "s3-get");
    assert.equal(get.event.bucket, outputs.BucketName);
    assert.equal(get.event.key, "test-objects/object-1073741824-bytes");
    assert.match(get.functionName, /^lambda-netbench-agent:s-seed-m\d+-arm64$/);
    assert.deepEqual(execution.manifest.source, { preset: "seed", configPath: null, regions: ["us-west-2"] });
    assert.equal(execution.manifest.cells.length, 18);
    assert.ok(bodies.has("PUT /schedules/seed/tasks.json"));
    const templatePut = [...bodies.keys()].find((key) =>
      /^PUT \/schedules\/seed\/template-[0-9a-f]{16}\.json$/.test(key),
    );
    assert.ok(templatePut, "the nested template, content-addressed");
    const nested = JSON.parse(bodies.get(templatePut) ?? "{}");
    const roles = Object.entries<any>(nested.Resources).filter(([, r]) => r.Type === "AWS::IAM::Role");
    assert.equal(roles.length, 3, "recorder, state machine, scheduler");
    for (const [id, role] of roles)
      assert.equal(role.Properties.PermissionsBoundary, boundary, `${id}: deploy --permissions-boundary`);
    assert.ok(
      stub.requests.some(
        (r) => r.operation === "PutObject" && /^\/agent\/recorder-[0-9a-f]{64}\.zip$/.test(r.path),
      ),
      "the recorder's zip beside the agent's",
    );
    const update = stub.requests.find((r) => r.operation === "UpdateStack");
    const parent = JSON.parse(String(update?.input.TemplateBody));
    assert.equal(parent.Resources.ScheduleSeed.Type, "AWS::CloudFormation::Stack");
    assert.match(
      JSON.stringify(parent.Resources.ScheduleSeed.Properties.TemplateURL),
      /schedules\/seed\/template-/,
    );
    assert.deepEqual(
      parent.Resources.AgentFunction,
      (regionTemplate as any).Resources.AgentFunction,
      "the rest untouched",
    );
    assert.equal(update?.input["Capabilities.member.1"], "CAPABILITY_IAM");
    assert.equal(
      update?.input["Tags.member.1.Key"],
      undefined,
      "the stack's tags (deploy --tags) kept as they are",
    );
    const order = stub.operations();
    assert.ok(order.indexOf("GetTemplate") < order.indexOf("UpdateStack"));
    assert.equal(order.at(-1), "DescribeStacks", "waits for UPDATE_COMPLETE");
  });

  test("list: each schedule with its expression, state and last execution", async () => {
    stub
      .on(
        "GET /schedules",
        json({ Schedules: [{ Name: "lambda-netbench-seed", State: "ENABLED", GroupName: "default" }] }),
      )
      .on(
        "GET /schedules/lambda-netbench-seed",
        json({
          Name: "lambda-netbench-seed",
          ScheduleExpression: "rate(1 day)",
          ScheduleExpressionTimezone: "UTC",
          State: "ENABLED",
          Target: {
            Arn: stateMachineArn,
            RoleArn: "arn:aws:iam::123456789012:role/x",
            Input: '{"bucket":"b","schedule":"seed"}',
          },
        }),
      )
      .on(
        "ListExecutions",
        json({
          executions: [
            {
              executionArn: `${stateMachineArn.replace("stateMachine", "execution")}:e1`,
              stateMachineArn,
              name: "e1",
              status: "SUCCEEDED",
              startDate: 1_796_000_000,
            },
          ],
        }),
      );
    await run("schedule", "list", "--region", "us-west-2");
    assert.match(out.join("\n"), /^seed {2}rate\(1 day\) {2}ENABLED {2}last SUCCEEDED 2026-\d\d-\d\dT/m);
    const listExecutions = stub.requests.find((r) => r.operation === "ListExecutions");
    assert.equal(listExecutions?.input.stateMachineArn, stateMachineArn);
  });

  test("run-now: starts the state machine with the schedule's input; an unknown name is a clear error", async () => {
    stub
      .on(
        "GET /schedules/lambda-netbench-seed",
        json({
          Name: "lambda-netbench-seed",
          Target: { Arn: stateMachineArn, RoleArn: "r", Input: '{"bucket":"b","schedule":"seed"}' },
        }),
      )
      .on("StartExecution", json({ executionArn: `${stateMachineArn}:run-now`, startDate: 1_796_000_000 }));
    await run("schedule", "run-now", "--region", "us-west-2", "--name", "seed");
    const start = stub.requests.find((r) => r.operation === "StartExecution");
    assert.equal(start?.input.stateMachineArn, stateMachineArn);
    assert.equal(start?.input.input, '{"bucket":"b","schedule":"seed"}');
    assert.match(String(start?.input.name), /^run-now-\d{8}T\d{6}Z$/);
    assert.match(out.join("\n"), /started arn:aws:states/);
    stub.on(
      "GET /schedules/lambda-netbench-nope",
      schedulerError("ResourceNotFoundException", "Schedule lambda-netbench-nope does not exist.", 404),
    );
    await assert.rejects(
      run("schedule", "run-now", "--region", "us-west-2", "--name", "nope"),
      /no schedule named nope in us-west-2/,
    );
  });

  test("delete: the nested stack, the schedule's aliases and plan go; run's aliases and the runs stay", async () => {
    const withSchedule = JSON.parse(JSON.stringify(regionTemplate));
    withSchedule.Resources.ScheduleSeed = {
      Type: "AWS::CloudFormation::Stack",
      Properties: { TemplateURL: "https://x/y.json" },
    };
    withSchedule.Outputs.ScheduleSeedStack = { Value: "{}" };
    stub
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", outputs))
      .on("GetTemplate", getTemplate(withSchedule))
      .on("UpdateStack", queryXml("UpdateStack", "<StackId>x</StackId>"))
      .on(
        "ListAliases",
        restJson({
          Aliases: [
            { Name: "m1024-arm64", FunctionVersion: "6" },
            { Name: "s-seed-m1024-arm64", FunctionVersion: "7" },
            { Name: "s-seedling-m1024-arm64", FunctionVersion: "8" },
          ],
        }),
      )
      .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
      .on(
        "DeleteFunction",
        restJsonError(
          "ResourceConflictException",
          "Unable to delete version because the following aliases reference it",
          409,
        ),
      )
      .on("GET /", listing([], ["schedules/seed/execution.json", "schedules/seed/tasks.json"]))
      .on(
        "DeleteObjects",
        s3Xml('<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>'),
      );
    await run("schedule", "delete", "--region", "us-west-2", "--name", "seed");
    const update = stub.requests.find((r) => r.operation === "UpdateStack");
    const parent = JSON.parse(String(update?.input.TemplateBody));
    assert.equal(parent.Resources.ScheduleSeed, undefined);
    assert.equal(parent.Outputs.ScheduleSeedStack, undefined);
    assert.deepEqual(
      stub.requests.filter((r) => r.operation === "DeleteAlias").map((r) => r.path.split("/").at(-1)),
      ["s-seed-m1024-arm64"],
    );
    assert.match(out.join("\n"), /schedule seed in us-west-2: deleted \(1 alias\(es\), 2 plan object\(s\)\)/);
    const list = stub.requests.find((r) => r.operation === "GET /");
    assert.equal(list?.input.prefix, "schedules/seed/");
  });

  test("delete: a key S3 could not delete (a per-key error in DeleteObjects) fails the delete, naming it", async () => {
    stub
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", outputs))
      .on("GetTemplate", getTemplate(regionTemplate))
      .on("ListAliases", restJson({ Aliases: [] }))
      .on("GET /", listing([], ["schedules/seed/execution.json", "schedules/seed/tasks.json"]))
      .on(
        "DeleteObjects",
        s3Xml(
          '<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Error><Key>schedules/seed/tasks.json</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>',
        ),
      );
    await assert.rejects(
      run("schedule", "delete", "--region", "us-west-2", "--name", "seed"),
      /could not delete 1 object\(s\) from lambda-netbench-bucket-[\w-]+, first schedules\/seed\/tasks.json: AccessDenied/,
    );
  });

  test("runs pull: scheduled runs into run directories; --since filters; a bad date is refused first", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lnb-pull-"));
    try {
      const runId = "2026-11-30T06-00-03Z-seed";
      const manifest = {
        schemaVersion: 1,
        runId,
        createdAt: "2026-11-30T06:00:03.120Z",
        toolVersion: "0.1.0",
        nodeVersion: "v22.11.0",
        hostname: "step-functions:e1",
        source: { preset: "seed", configPath: null, regions: ["us-west-2"] },
        plan: { name: "seed" },
        cells: [],
        platforms: {},
        completedAt: "2026-11-30T06:20:00.000Z",
      };
      const record = (cellId: string, startedAt: string) =>
        JSON.stringify({ schemaVersion: 1, runId, cellId, repetition: 1, startedAt });
      stub
        .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", outputs))
        .on("GET /", (request) =>
          request.input.delimiter === "/"
            ? listing(["runs/2026-11-01T06-00-00Z-seed/", `runs/${runId}/`], [])
            : listing([], [`runs/${runId}/records/b-1.jsonl`, `runs/${runId}/records/a-1.jsonl`]),
        )
        .on(`GET /runs/${runId}/manifest.json`, {
          statusCode: 200,
          headers: {},
          body: JSON.stringify(manifest),
        })
        .on(`GET /runs/${runId}/records/a-1.jsonl`, {
          statusCode: 200,
          headers: {},
          body: `${record("a", "2026-11-30T06:00:05Z")}\n`,
        })
        .on(`GET /runs/${runId}/records/b-1.jsonl`, {
          statusCode: 200,
          headers: {},
          body: `${record("b", "2026-11-30T06:00:04Z")}\n`,
        })
        .on("GET /runs/2026-11-01T06-00-00Z-seed/manifest.json", noSuchKey);
      await run("runs", "pull", "--region", "us-west-2", "--since", "2026-11-15", "--out", dir);
      const { records } = await readRecords(join(dir, runId));
      assert.deepEqual(
        records.map((r) => r.cellId),
        ["b", "a"],
        "in the order they were invoked",
      );
      assert.equal((await readManifest(join(dir, runId))).completedAt, manifest.completedAt);
      assert.ok(!stub.requests.some((r) => r.path.includes("2026-11-01")), "--since leaves older runs alone");
      assert.match(out.join("\n"), /1 run\(s\) pulled, 0 already complete locally/);
      assert.ok((await readFile(join(dir, runId, "results.jsonl"), "utf8")).endsWith("\n"));

      const before = stub.requests.length;
      await run("runs", "pull", "--region", "us-west-2", "--since", "30/11/2026", "--out", dir);
      assert.equal(process.exitCode, 2);
      assert.match(out.join("\n"), /--since: "30\/11\/2026" is not a date/);
      assert.equal(stub.requests.length, before, "no call");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
