// A new account's first `deploy --with-server`: the real CLI (from source) against moto. EC2's
// vCPU quota (Service Quotas ec2 / L-1216C47A) and CloudFormation's rollback of a server EC2
// refuses are what moto never answers: a small interposer in front of the rehearsal's front
// answers them in AWS's own shapes (the quota's value; an UpdateStack whose instance fails with
// VcpuLimitExceeded, the stack then UPDATE_ROLLBACK_COMPLETE, as CloudFormation reports it).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { EC2Client } from "@aws-sdk/client-ec2";
import { GetFunctionCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { cliArgv } from "../helpers/cli-process.js";
import { freeLoopbackPort } from "../helpers/free-port.js";
import { type Front, signedScope, startFront } from "./aws-front.js";
import { BandwidthQuota } from "./bandwidth-quota.js";
import { type MotoProcess, startMoto } from "./moto-process.js";
import {
  giveDefaultVpcAnInternetGateway,
  INSTANCE_PUBLIC_ADDRESS,
  rehearsalCliEnv,
  rehearsalSkip,
} from "./rehearsal.js";
import { REHEARSAL_CREDENTIALS } from "./rehearsal-credentials.js";
import { listeningPort, stopChild } from "./relays.js";

const skip = rehearsalSkip("the new-account deploy test");
const region = "us-west-2";
const account = "123456789012";
const vcpuLimitReason =
  "You have requested more vCPU capacity than your current vCPU limit of 1 allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. (Service: Ec2, Status Code: 400, Request ID: 5e7a1b2c-0000-4000-8000-000000000000)";

let dir: string;
let moto: MotoProcess;
let front: Front;
let interposer: Server;
let url: string;
/** What the interposer answers: the vCPU quota's value, and whether a server's update fails. */
const account_ = { vcpuQuota: 1, failServerUpdate: false, rolledBack: false };
/** The templates of every UpdateStack, in order (parsed). */
const updates: { Resources: Record<string, { Type: string }> }[] = [];
const writes: string[] = [];
/** SSM PutParameter inputs as sent (the secrets must carry their tags at creation). */
const parameterPuts: { Name?: string; Type?: string; Tags?: unknown; Overwrite?: boolean }[] = [];
let motoClients: { cfn: CloudFormationClient; lambda: LambdaClient };

before(
  async () => {
    if (skip) return;
    dir = await mkdtemp(join(tmpdir(), "lnb-new-account-test-"));
    const port = await freeLoopbackPort();
    const motoUrl = `http://127.0.0.1:${port}`;
    moto = await startMoto({
      namespace: null,
      host: "127.0.0.1",
      port,
      probeUrl: motoUrl,
      logFile: join(dir, "moto.log"),
    });
    const common = { region, endpoint: motoUrl, credentials: REHEARSAL_CREDENTIALS };
    await giveDefaultVpcAnInternetGateway(new EC2Client(common));
    motoClients = { cfn: new CloudFormationClient(common), lambda: new LambdaClient(common) };
    front = await startFront({
      motoUrl,
      quota: new BandwidthQuota(account),
      bridge: null,
      accountSettings: { concurrentExecutions: 1000, unreservedConcurrentExecutions: 1000 },
      publicAddress: INSTANCE_PUBLIC_ADDRESS,
      account,
      serverPrices: [],
    });
    interposer = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => interpose(Buffer.concat(chunks), incoming, outgoing));
    });
    await new Promise<void>((resolve) => interposer.listen(0, "127.0.0.1", () => resolve()));
    url = `http://127.0.0.1:${listeningPort(interposer)}`;
  },
  { timeout: 120_000 },
);

after(async () => {
  if (skip) return;
  await new Promise((resolve) => (interposer ? interposer.close(resolve) : resolve(undefined)));
  await front?.close();
  if (moto) await stopChild(moto.child);
  await rm(dir, { recursive: true, force: true });
});

function interpose(
  body: Buffer,
  incoming: import("node:http").IncomingMessage,
  outgoing: import("node:http").ServerResponse,
): void {
  const service = signedScope(incoming.headers.authorization)?.service;
  const target = String(incoming.headers["x-amz-target"] ?? "");
  const form = new URLSearchParams(body.toString("utf8"));
  const action = service === "cloudformation" || service === "ec2" ? (form.get("Action") ?? "") : "";
  if (service === "ssm" && target.endsWith(".PutParameter"))
    parameterPuts.push(JSON.parse(body.toString("utf8")));
  // EC2's DryRun=true asks and changes nothing
  const asks = form.get("DryRun") === "true";
  if (
    (!asks && /^(Create|Update|Delete|Put|Run|Terminate)/.test(action)) ||
    /PutParameter|DeleteParameter|AddTagsToResource/.test(target)
  )
    writes.push(`${service} ${action || target.split(".").at(-1)}`);
  // EC2's vCPU quotas: Service Quotas answers them from AWS's defaults in a new account
  if (service === "servicequotas" && /GetServiceQuota|GetAWSDefaultServiceQuota/.test(target)) {
    const input = JSON.parse(body.toString("utf8") || "{}") as { ServiceCode?: string; QuotaCode?: string };
    if (input.ServiceCode === "ec2") {
      outgoing.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
      outgoing.end(
        JSON.stringify({
          Quota: {
            ServiceCode: "ec2",
            QuotaCode: input.QuotaCode,
            QuotaName: "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances",
            Value: account_.vcpuQuota,
            Unit: "None",
          },
        }),
      );
      return;
    }
  }
  if (action === "UpdateStack") {
    const template = JSON.parse(form.get("TemplateBody") ?? "{}");
    updates.push(template);
    const instance = Object.entries(template.Resources ?? {}).find(
      ([, resource]) => (resource as { Type: string }).Type === "AWS::EC2::Instance",
    );
    if (instance && account_.failServerUpdate) {
      // CloudFormation takes the update, EC2 refuses the instance, the update rolls back to the
      // template before it: moto keeps that one, since it never sees this update
      account_.rolledBack = true;
      failedInstance = instance[0];
      xml(
        outgoing,
        `<UpdateStackResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><UpdateStackResult><StackId>${stackId}</StackId></UpdateStackResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></UpdateStackResponse>`,
      );
      return;
    }
  }
  if (action === "DescribeStackEvents" && account_.rolledBack) xml(outgoing, rollbackEvents(failedInstance));
  else forward(body, incoming, outgoing, action === "DescribeStacks" && account_.rolledBack);
}

let failedInstance = "Iperf3Server1";
const stackId = `arn:aws:cloudformation:${region}:${account}:stack/lambda-netbench/1`;

function xml(outgoing: import("node:http").ServerResponse, text: string): void {
  outgoing.writeHead(200, { "content-type": "text/xml" });
  outgoing.end(text);
}

function rollbackEvents(logicalId: string): string {
  const event = (id: number, logical: string, type: string, status: string, reason?: string) =>
    `<member><StackId>${stackId}</StackId><EventId>${id}</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>${logical}</LogicalResourceId><ResourceType>${type}</ResourceType><Timestamp>2026-12-02T18:00:0${id}.000Z</Timestamp><ResourceStatus>${status}</ResourceStatus>${reason ? `<ResourceStatusReason>${reason}</ResourceStatusReason>` : ""}</member>`;
  // newest first, as CloudFormation lists them
  return `<DescribeStackEventsResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStackEventsResult><StackEvents>${[
    event(5, "lambda-netbench", "AWS::CloudFormation::Stack", "UPDATE_ROLLBACK_COMPLETE"),
    event(
      4,
      "lambda-netbench",
      "AWS::CloudFormation::Stack",
      "UPDATE_ROLLBACK_IN_PROGRESS",
      `The following resource(s) failed to create: [${logicalId}]. `,
    ),
    event(3, logicalId, "AWS::EC2::Instance", "CREATE_FAILED", vcpuLimitReason),
    event(2, logicalId, "AWS::EC2::Instance", "CREATE_IN_PROGRESS"),
    event(1, "lambda-netbench", "AWS::CloudFormation::Stack", "UPDATE_IN_PROGRESS", "User Initiated"),
  ].join(
    "",
  )}</StackEvents></DescribeStackEventsResult><ResponseMetadata><RequestId>2</RequestId></ResponseMetadata></DescribeStackEventsResponse>`;
}

function forward(
  body: Buffer,
  incoming: import("node:http").IncomingMessage,
  outgoing: import("node:http").ServerResponse,
  rolledBack: boolean,
): void {
  const upstream = request(
    new URL(incoming.url ?? "/", front.url),
    { method: incoming.method, headers: incoming.headers },
    (answer) => {
      if (!rolledBack) {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on("data", (chunk: Buffer) => chunks.push(chunk));
      answer.on("end", () => {
        const text = Buffer.concat(chunks)
          .toString("utf8")
          .replace(
            /<StackStatus>[A-Z_]+<\/StackStatus>/,
            "<StackStatus>UPDATE_ROLLBACK_COMPLETE</StackStatus>",
          );
        const { "content-length": _, ...headers } = answer.headers;
        outgoing.writeHead(answer.statusCode ?? 502, {
          ...headers,
          "content-length": String(Buffer.byteLength(text)),
        });
        outgoing.end(text);
      });
    },
  );
  upstream.on("error", () => outgoing.destroy());
  upstream.end(body);
}

function cli(args: string[]): Promise<{ code: number; all: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgv(args),
      {
        timeout: 240_000,
        env: rehearsalCliEnv(url, dir),
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          all: `${stdout}\n${stderr}`,
        }),
    );
  });
}

const deployArgs = [
  "deploy",
  "--region",
  region,
  "--arch",
  "x86_64",
  "--with-server",
  "--test-object-mib",
  "0",
];

test("a server over the EC2 vCPU quota is refused before anything is created, naming the quota and how to ask for more", {
  skip,
  timeout: 300_000,
}, async () => {
  account_.vcpuQuota = 1;
  const mark = writes.length;
  for (const dryRun of [true, false]) {
    const result = await cli(dryRun ? [...deployArgs, "--dry-run"] : deployArgs);
    assert.notEqual(result.code, 0, result.all);
    assert.match(
      result.all,
      /the iperf3 server \(c8gn\.large, 2 vCPUs\) does not fit EC2's vCPU quota in us-west-2: "Running On-Demand Standard \(A, C, D, H, I, M, R, T, Z\) instances" \(Service Quotas ec2 \/ L-1216C47A\) is 1 vCPUs, 0 in use by running instances; deploy changed nothing/,
    );
    assert.match(
      result.all,
      /aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-1216C47A --desired-value 2 --region us-west-2/,
    );
  }
  // tag keys instance metadata cannot hold: refused before any call
  const badTag = await cli([...deployArgs, "--tags", "Cost Center=net-42"]);
  assert.equal(badTag.code, 2, badTag.all);
  assert.match(
    badTag.all,
    /tags: "Cost Center": the iperf3 server's tags are readable from its instance metadata/,
  );
  assert.deepEqual(writes.slice(mark), [], "no write call");
  await assert.rejects(
    motoClients.cfn.send(new DescribeStacksCommand({ StackName: "lambda-netbench" })),
    /does not exist/,
  );
});

test("the function is deployed before the server: a VcpuLimitExceeded rolls back only the server's update", {
  skip,
  timeout: 300_000,
}, async () => {
  account_.vcpuQuota = 32;
  account_.failServerUpdate = true;
  const result = await cli(deployArgs);
  assert.equal(result.code, 1, result.all);
  assert.match(result.all, /EC2 vCPU quota L-1216C47A: c8gn\.large needs 2 of 32 vCPUs \(0 in use\)/);
  assert.match(
    result.all,
    /ended in UPDATE_ROLLBACK_COMPLETE: Iperf3Server1: You have requested more vCPU capacity/,
  );
  // the first update held the function and no instance; the second added the instance
  const types = updates.map((template) => Object.values(template.Resources).map((resource) => resource.Type));
  assert.equal(types.length, 2, JSON.stringify(types));
  assert.ok(types[0]?.includes("AWS::Lambda::Function") && !types[0]?.includes("AWS::EC2::Instance"));
  assert.ok(types[1]?.includes("AWS::EC2::Instance"));
  // both secrets created with their tags, not tagged afterwards
  const secrets = parameterPuts.filter((put) => put.Type === "SecureString");
  assert.equal(secrets.length, 2, JSON.stringify(parameterPuts.map((put) => put.Name)));
  for (const put of secrets) {
    assert.deepEqual(put.Tags, [{ Key: "lambda-netbench", Value: "managed" }], put.Name);
    assert.equal(put.Overwrite, undefined);
  }
  assert.deepEqual(
    writes.filter((write) => write.endsWith("AddTagsToResource")),
    [],
  );
  // what the rollback left: the function, in the stack's outputs and in Lambda
  const stack = await motoClients.cfn.send(new DescribeStacksCommand({ StackName: "lambda-netbench" }));
  const outputs = Object.fromEntries(
    (stack.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]),
  );
  assert.equal(outputs.FunctionName, "lambda-netbench-agent");
  const fn = await motoClients.lambda.send(new GetFunctionCommand({ FunctionName: "lambda-netbench-agent" }));
  assert.equal(fn.Configuration?.FunctionName, "lambda-netbench-agent");
});
