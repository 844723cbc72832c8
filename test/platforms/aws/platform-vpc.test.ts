import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AwsPlatform } from "../../../src/platforms/aws/aws-platform.js";
import { generateIperf3Secrets } from "../../../src/platforms/aws/iperf3-credentials.js";
import { AwsStub, describeStacks, json, restJson, testCredentials } from "./aws-stub.js";

const secrets = generateIperf3Secrets();
const base = {
  BucketName: "lambda-netbench-bucket-1a2b3c",
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/abc.zip",
  FunctionArchitecture: "arm64",
  ServerPublicDnsName: "ec2-198-18-7-7.us-west-2.compute.amazonaws.com",
  ServerPublicIp: "198.18.7.7",
  ServerPrivateIp: "10.0.9.20",
  ServerVpcId: "vpc-0a1b2c3d4e5f60718",
  ServerPorts: "5201-5202",
  ServerExpiresAt: "2099-01-01T00:00:00.000Z",
  ServerInstanceId: "i-0123456789abcdef0",
};
const withVpc = {
  ...base,
  VpcFunctionName: "lambda-netbench-agent-vpc",
  VpcId: "vpc-0a1b2c3d4e5f60718",
  VpcSubnetIds: "subnet-0aaa1111bbbb22223",
  VpcSecurityGroupId: "sg-0123456789abcdef0",
  VpcOwnSecurityGroup: "true",
};
const quota = {
  Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 625 },
};
const config = (name: string) => ({
  FunctionName: name,
  FunctionArn: `arn:aws:lambda:us-west-2:123456789012:function:${name}`,
  Runtime: "nodejs22.x",
  MemorySize: 2048,
  Architectures: ["arm64"],
  State: "Active",
  LastUpdateStatus: "Successful",
});
const agentOk = {
  ok: true,
  probe: "info",
  summary: null,
  detail: {},
  invocation: { environmentId: "e1", invocationNumber: 1, cold: true },
  startedAt: "2026-11-29T20:00:00Z",
  durationSeconds: 0.01,
};
/** The function a Lambda REST request is about: /2015-03-31/functions/NAME/... */
const functionOf = (path: string) => /\/functions\/([^/]+)/.exec(decodeURIComponent(path))?.[1];

function stubFor(outputs: Record<string, string>): AwsStub {
  return new AwsStub()
    .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", outputs))
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json(quota))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
    .on("GetParameter", (request) => {
      const name = String(request.input.Name);
      const value = name.endsWith("private-key")
        ? secrets.privateKeyPem
        : name.endsWith("password")
          ? secrets.password
          : JSON.stringify({
              version: "3.16",
              padding: "pkcs1",
              ports: "5201-5202",
              instanceId: "i-0123456789abcdef0",
            });
      return json({ Parameter: { Name: name, Type: "SecureString", Value: value } });
    })
    .on("GetFunctionConfiguration", (request) => restJson(config(functionOf(request.path) ?? "?")))
    .on("UpdateFunctionConfiguration", (request) => restJson(config(functionOf(request.path) ?? "?")))
    .on("GetFunction", (request) => restJson({ Configuration: config(functionOf(request.path) ?? "?") }))
    .on("PublishVersion", (request) =>
      restJson({ ...config(functionOf(request.path) ?? "?"), Version: "4" }, 201),
    )
    .on("GetAlias", (request) => restJson({ Name: "m2048-arm64", FunctionVersion: "3", Path: request.path }))
    .on("UpdateAlias", restJson({ Name: "m2048-arm64", FunctionVersion: "4" }))
    .on("Invoke", restJson(agentOk, 200, { "x-amz-executed-version": "4" }));
}

const open = (stub: AwsStub) =>
  AwsPlatform.open({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    waiter: { minDelaySeconds: 0.01, maxDelaySeconds: 0.02, maxWaitSeconds: 5 },
    backoff: { baseMs: 1, capMs: 5 },
  });
const plain = { memoryMb: 2048, arch: "arm64" as const };
const inVpc = { ...plain, vpc: true };
const iperf3 = {
  probe: "iperf3" as const,
  host: "ec2-198-18-7-7.us-west-2.compute.amazonaws.com",
  port: 5201,
  timeSeconds: 10,
};

describe("AwsPlatform with the VPC variant (real Lambda client, stubbed transport)", () => {
  test("a vpc cell on a stack without the VPC function: refused in prepare, before any Lambda call, naming the deploy flags", async () => {
    const stub = stubFor(base);
    const platform = await open(stub);
    await assert.rejects(platform.prepare([plain, inVpc]), (error: Error) => {
      assert.match(
        error.message,
        /has no VPC function: run `lambda-netbench deploy --region us-west-2 --vpc-subnets/,
      );
      return true;
    });
    assert.ok(!stub.requests.some((r) => r.service === "lambda"), stub.operations().join());
    await platform.dispose();
  });

  test("both variants: each published on its own function; invocations go to the right one; iperf3 from the VPC uses the server's private address", async () => {
    const stub = stubFor(withVpc);
    const platform = await open(stub);
    await platform.prepare([plain, inVpc]);
    const published = stub.requests
      .filter((r) => r.operation === "PublishVersion")
      .map((r) => functionOf(r.path));
    assert.deepEqual(published, ["lambda-netbench-agent", "lambda-netbench-agent-vpc"]);
    const before = stub.requests.length;
    const outcomes = await Promise.all([platform.invoke(plain, iperf3), platform.invoke(inVpc, iperf3)]);
    for (const outcome of outcomes) assert.equal(outcome.response?.ok, true, JSON.stringify(outcome));
    const invokes = stub.requests.slice(before).filter((r) => r.operation === "Invoke");
    const byFunction = Object.fromEntries(invokes.map((r) => [functionOf(r.path), r]));
    assert.equal(
      byFunction["lambda-netbench-agent"]?.input.host,
      "ec2-198-18-7-7.us-west-2.compute.amazonaws.com",
    );
    assert.equal(byFunction["lambda-netbench-agent-vpc"]?.input.host, "10.0.9.20");
    assert.equal(byFunction["lambda-netbench-agent-vpc"]?.input.Qualifier, "m2048-arm64");
    const facts = await platform.facts();
    assert.deepEqual((facts.details.vpcFunction as { iperf3Address: string }).iperf3Address, "private");
    stub
      .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
      .on("DeleteFunction", { statusCode: 204, headers: {}, body: "" });
    await platform.dispose();
    const deleted = stub.requests.filter((r) => r.operation === "DeleteAlias").map((r) => functionOf(r.path));
    assert.deepEqual(deleted.sort(), ["lambda-netbench-agent", "lambda-netbench-agent-vpc"]);
  });

  test("the server in another VPC: the VPC function keeps the public name (reached through its NAT)", async () => {
    const stub = stubFor({ ...withVpc, ServerVpcId: "vpc-0ffff0000eeee1111" });
    const platform = await open(stub);
    await platform.prepare([inVpc]);
    await platform.invoke(inVpc, iperf3);
    const invoke = stub.requests.find((r) => r.operation === "Invoke");
    assert.equal(functionOf(invoke?.path ?? ""), "lambda-netbench-agent-vpc");
    assert.equal(invoke?.input.host, "ec2-198-18-7-7.us-west-2.compute.amazonaws.com");
    stub
      .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
      .on("DeleteFunction", { statusCode: 204, headers: {}, body: "" });
    await platform.dispose();
  });
});
