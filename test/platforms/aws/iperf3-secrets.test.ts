import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AwsPlatform } from "../../../src/platforms/aws/aws-platform.js";
import { ensureIperf3Secrets, generateIperf3Secrets } from "../../../src/platforms/aws/iperf3-credentials.js";
import { AwsStub, describeStacks, json, stubbedClients, testCredentials } from "./aws-stub.js";

const secrets = generateIperf3Secrets();
const parameter = (name: string, value: string, type = "SecureString") =>
  json({ Parameter: { Name: name, Type: type, Value: value, Version: 1 } });
const byName = (request: { input: Record<string, unknown> }) => {
  const name = request.input.Name as string;
  if (name.endsWith("private-key")) return parameter(name, secrets.privateKeyPem);
  if (name.endsWith("password")) return parameter(name, secrets.password);
  return parameter(
    name,
    JSON.stringify({ version: "3.17.1", padding: "oaep", ports: "5201-5202" }),
    "String",
  );
};

describe("iperf3 secrets in SSM Parameter Store", () => {
  test("re-deploy keeps the existing key and password (a running server stays reachable)", async () => {
    const stub = new AwsStub().on("GetParameter", byName);
    const clients = stubbedClients(stub);
    assert.equal(await ensureIperf3Secrets(clients.ssm), false);
    assert.deepEqual(stub.operations(), ["GetParameter", "GetParameter"]);
    assert.ok(stub.requests.every((r) => r.input.WithDecryption === true));
  });

  test("the platform hands the agent username, password, public key and the server's padding", async () => {
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", {
          BucketName: "b-1",
          FunctionName: "lambda-netbench-agent",
          AgentCodeKey: "agent/a.zip",
          ServerPublicDnsName: "ec2-198-18-0-9.us-west-2.compute.amazonaws.com",
          ServerPorts: "5201-5202",
        }),
      )
      .on("GetParameter", byName)
      .on("GetServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 3000 } }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
    const platform = await AwsPlatform.open({
      region: "us-west-2",
      credentials: testCredentials,
      requestHandler: stub.handler,
    });
    const endpoints = platform.endpoints();
    assert.equal(endpoints.iperf3?.host, "ec2-198-18-0-9.us-west-2.compute.amazonaws.com");
    assert.deepEqual(endpoints.iperf3?.ports, [5201, 5202]);
    assert.equal(endpoints.iperf3?.auth?.username, "lambda-netbench");
    assert.equal(endpoints.iperf3?.auth?.password, secrets.password);
    assert.equal(endpoints.iperf3?.auth?.padding, "oaep");
    assert.match(endpoints.iperf3?.auth?.publicKeyPem ?? "", /BEGIN PUBLIC KEY/);
    assert.deepEqual(endpoints.s3, {
      region: "us-west-2",
      bucket: "b-1",
      pathStyle: false,
      putKeyPrefix: "test-objects/put/",
    });
    // the facts go into the run's manifest: no password there (a whole run: secrets-stay-out.test.ts)
    const facts = JSON.stringify(await platform.facts());
    assert.ok(!facts.includes(secrets.password));
    await platform.dispose();
  });
});
