import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createAwsClients } from "../../../src/platforms/aws/aws-clients.js";
import { type DeployOptions, deployStack, planServer } from "../../../src/platforms/aws/deploy.js";
import { PlannedCallRecorder } from "../../../src/platforms/aws/planned-calls.js";
import { StackOperationFailed } from "../../../src/platforms/aws/stack-state.js";
import {
  AwsStub,
  describeStacks,
  json,
  jsonError,
  queryError,
  queryXml,
  stackDoesNotExist,
  stackId,
  testCredentials,
} from "./aws-stub.js";

const bucket = "lambda-netbench-bucket-1a2b3c";
const fullOutputs = {
  BucketName: bucket,
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/abc.zip",
};
const options: DeployOptions = {
  arch: "arm64",
  memoryMb: 2048,
  timeoutSeconds: 900,
  server: null,
  agent: { zip: Buffer.from("PK-zip-bytes"), sha256: "abc" },
  testObjectBytes: null,
  stackPoll: { pollIntervalMs: 1, timeoutMs: 5_000 },
  serverReady: { pollIntervalMs: 1, timeoutMs: 5_000 },
  now: () => new Date("2026-11-29T20:00:00Z"),
};
const ok = (action: string) => queryXml(action, `<StackId>${stackId}</StackId>`);
const notFound = { statusCode: 404, headers: {}, body: "" };
const putOk = { statusCode: 200, headers: { etag: '"9b2cf535f27731c974343645a3985328"' }, body: "" };
const parameterNotFound = jsonError("ParameterNotFound", "");

function clients(stub: AwsStub, dryRun = false) {
  return createAwsClients({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    maxAttempts: 1,
    recorder: new PlannedCallRecorder(dryRun),
  });
}

describe("deploy on the real CloudFormation/S3/SSM clients (stubbed transport)", () => {
  test("create: bucket first, agent zip uploaded, full template applied, server secrets in SSM", async () => {
    const status = JSON.stringify({ version: "3.16", padding: "pkcs1", ports: "5201-5201" });
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        stackDoesNotExist,
        describeStacks("CREATE_IN_PROGRESS"),
        describeStacks("CREATE_COMPLETE", { BucketName: bucket }),
        describeStacks("UPDATE_IN_PROGRESS", { BucketName: bucket }),
        describeStacks("UPDATE_COMPLETE", {
          ...fullOutputs,
          ServerPublicDnsName: "ec2-198-18-0-1.us-west-2.compute.amazonaws.com",
          ServerPorts: "5201-5201",
          ServerExpiresAt: "2026-11-29T23:00:00.000Z",
        }),
      )
      .on(
        "GetParameter",
        parameterNotFound,
        parameterNotFound,
        json({ Parameter: { Name: "/lambda-netbench/iperf3/server-status", Type: "String", Value: status } }),
      )
      .on("PutParameter", json({ Version: 1, Tier: "Standard" }))
      .on("AddTagsToResource", json({}))
      .on("DeleteParameter", parameterNotFound)
      .on("CreateStack", ok("CreateStack"))
      .on("HeadObject", notFound)
      .on("PutObject", putOk)
      .on("UpdateStack", ok("UpdateStack"));
    const result = await deployStack(clients(stub), {
      ...options,
      server: { instanceType: "c8gn.large", ttlHours: 3, ports: 1 },
    });
    assert.deepEqual(stub.operations(), [
      "DescribeStacks",
      "GetParameter",
      "GetParameter",
      "PutParameter",
      "AddTagsToResource",
      "PutParameter",
      "AddTagsToResource",
      "DeleteParameter",
      "CreateStack",
      "DescribeStacks",
      "DescribeStacks",
      "HeadObject",
      "PutObject",
      "UpdateStack",
      "DescribeStacks",
      "DescribeStacks",
      "GetParameter",
    ]);
    const find = (op: string) => stub.requests.filter((r) => r.operation === op);
    assert.deepEqual(
      find("PutParameter").map((r) => [r.input.Name, r.input.Type]),
      [
        ["/lambda-netbench/iperf3/private-key", "SecureString"],
        ["/lambda-netbench/iperf3/password", "SecureString"],
      ],
    );
    assert.match(String(find("PutParameter")[0]?.input.Value), /BEGIN PRIVATE KEY/);
    const create = find("CreateStack")[0]?.input ?? {};
    assert.equal(create["Capabilities.member.1"], "CAPABILITY_IAM");
    assert.equal(create["Tags.member.1.Key"], "lambda-netbench");
    const first = JSON.parse(String(create.TemplateBody));
    assert.equal(
      first.Resources.AgentFunction,
      undefined,
      "first pass: no function before its code is uploaded",
    );
    assert.ok(first.Resources.Bucket);
    assert.equal(find("PutObject")[0]?.path, "/agent/abc.zip");
    const second = JSON.parse(String(find("UpdateStack")[0]?.input.TemplateBody));
    assert.equal(second.Resources.AgentFunction.Properties.Code.S3Key, "agent/abc.zip");
    assert.ok(second.Resources.Iperf3Server1);
    assert.equal(second.Outputs.ServerExpiresAt.Value, "2026-11-29T23:00:00.000Z");
    assert.equal(result.action, "created");
    assert.deepEqual(result.server, {
      host: "ec2-198-18-0-1.us-west-2.compute.amazonaws.com",
      ports: "5201-5201",
      expiresAt: "2026-11-29T23:00:00.000Z",
      padding: "pkcs1",
    });
    // the recorder never shows a secret
    assert.ok(!JSON.stringify(clients(stub).recorder.calls).includes("BEGIN PRIVATE KEY"));
  });

  test("re-run with nothing changed: in place, 'No updates are to be performed' is success", async () => {
    const stub = new AwsStub()
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", fullOutputs))
      .on("HeadObject", { statusCode: 200, headers: { "content-length": "12" }, body: "" })
      .on("UpdateStack", queryError("ValidationError", "No updates are to be performed."));
    const result = await deployStack(clients(stub), options);
    assert.deepEqual(stub.operations(), ["DescribeStacks", "HeadObject", "UpdateStack"]);
    assert.equal(result.action, "unchanged");
  });

  test("a stack left in ROLLBACK_COMPLETE is deleted, then created again", async () => {
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("ROLLBACK_COMPLETE"),
        describeStacks("DELETE_IN_PROGRESS"),
        stackDoesNotExist,
        describeStacks("CREATE_COMPLETE", { BucketName: bucket }),
        describeStacks("UPDATE_COMPLETE", fullOutputs),
      )
      .on("DeleteStack", queryXml("DeleteStack", ""))
      .on("CreateStack", ok("CreateStack"))
      .on("HeadObject", notFound)
      .on("PutObject", putOk)
      .on("UpdateStack", ok("UpdateStack"));
    const result = await deployStack(clients(stub), options);
    assert.deepEqual(stub.operations().slice(0, 5), [
      "DescribeStacks",
      "DeleteStack",
      "DescribeStacks",
      "DescribeStacks",
      "CreateStack",
    ]);
    assert.equal(result.action, "created");
  });

  test("a failed creation reports CloudFormation's reasons (ROLLBACK_COMPLETE)", async () => {
    const events = queryXml(
      "DescribeStackEvents",
      `<StackEvents>
        <member><StackId>${stackId}</StackId><EventId>e3</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>lambda-netbench</LogicalResourceId><ResourceType>AWS::CloudFormation::Stack</ResourceType><Timestamp>2026-11-29T20:02:00Z</Timestamp><ResourceStatus>ROLLBACK_COMPLETE</ResourceStatus></member>
        <member><StackId>${stackId}</StackId><EventId>e2</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>Bucket</LogicalResourceId><ResourceType>AWS::S3::Bucket</ResourceType><Timestamp>2026-11-29T20:01:00Z</Timestamp><ResourceStatus>CREATE_FAILED</ResourceStatus><ResourceStatusReason>Resource handler returned message: "Access Denied"</ResourceStatusReason></member>
        <member><StackId>${stackId}</StackId><EventId>e1</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>lambda-netbench</LogicalResourceId><ResourceType>AWS::CloudFormation::Stack</ResourceType><Timestamp>2026-11-29T20:00:00Z</Timestamp><ResourceStatus>CREATE_IN_PROGRESS</ResourceStatus><ResourceStatusReason>User Initiated</ResourceStatusReason></member>
      </StackEvents>`,
    );
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        stackDoesNotExist,
        describeStacks("ROLLBACK_IN_PROGRESS"),
        describeStacks("ROLLBACK_COMPLETE"),
      )
      .on("CreateStack", ok("CreateStack"))
      .on("DescribeStackEvents", events);
    await assert.rejects(deployStack(clients(stub), options), (error: unknown) => {
      assert.ok(error instanceof StackOperationFailed);
      assert.equal(error.status, "ROLLBACK_COMPLETE");
      assert.deepEqual(error.reasons, ['Bucket: Resource handler returned message: "Access Denied"']);
      return true;
    });
  });

  test("--dry-run: reads are sent, every change is only listed", async () => {
    const stub = new AwsStub().on("DescribeStacks", stackDoesNotExist);
    const c = clients(stub, true);
    const result = await deployStack(c, { ...options, testObjectBytes: 1_073_741_824 });
    assert.deepEqual(stub.operations(), ["DescribeStacks"]);
    assert.deepEqual(
      c.recorder.calls.map((call) => `${call.sent ? "sent" : "held"} ${call.operation}`),
      ["sent DescribeStacks", "held CreateStack", "held PutObject", "held UpdateStack"],
    );
    assert.ok(
      c.recorder
        .describe()
        .some((line) => line.startsWith("would call CloudFormation.CreateStack (us-west-2)")),
    );
    assert.equal(result.dryRun, true);
  });

  test("server generation: kept while it has time to live, replaced near the end", () => {
    const server = { instanceType: "c8gn.large", ttlHours: 3, ports: 1 };
    const now = new Date("2026-11-29T20:00:00Z");
    assert.deepEqual(planServer({}, server, now), {
      generation: 1,
      expiresAt: "2026-11-29T23:00:00.000Z",
      fresh: true,
    });
    const running = {
      ServerGeneration: "1",
      ServerExpiresAt: "2026-11-29T22:00:00.000Z",
      ServerInstanceType: "c8gn.large",
    };
    assert.equal(planServer(running, server, now).fresh, false);
    assert.equal(
      planServer({ ...running, ServerExpiresAt: "2026-11-29T20:10:00.000Z" }, server, now).generation,
      2,
    );
  });
});
