// Run by vpc-reachability.test.ts inside `unshare --net` (no network, only a downed loopback):
// the preflight of a VPC plan with a fleet must answer in seconds, every item named, not hang.
// STS, DescribeRegions and DescribeStacks are answered here (so the VPC checks run at all: a
// stack with the VPC function); every other call goes to the real HTTP handler with the
// preflight's timeouts, and finds no network.
import { Readable } from "node:stream";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { runPreflight } from "../../../src/platforms/aws/preflight.js";

const real = new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: 8_000 });
const identity = `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:sts::123456789012:assumed-role/Operator/alice</Arn><UserId>AROAEXAMPLE:alice</UserId><Account>123456789012</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>c0ffee00-1111-2222-3333-444455556666</RequestId></ResponseMetadata></GetCallerIdentityResponse>`;
const regions = `<DescribeRegionsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>c0ffee00-1111-2222-3333-444455556666</requestId><regionInfo><item><regionName>us-west-2</regionName><regionEndpoint>ec2.us-west-2.amazonaws.com</regionEndpoint><optInStatus>opt-in-not-required</optInStatus></item></regionInfo></DescribeRegionsResponse>`;
const outputs = {
  BucketName: "lambda-netbench-bucket-1a2b3c",
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/current.zip",
  VpcFunctionName: "lambda-netbench-agent-vpc",
  VpcId: "vpc-0a1b2c3d4e5f60718",
  VpcSubnetIds: "subnet-0aaa1111bbbb22223",
  VpcSecurityGroupId: "sg-0123456789abcdef0",
};
const stacks = `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>lambda-netbench</StackName><StackId>arn:aws:cloudformation:us-west-2:123456789012:stack/lambda-netbench/0f1e2d3c</StackId><CreationTime>2026-11-29T20:00:00.000Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${Object.entries(
  outputs,
)
  .map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`)
  .join(
    "",
  )}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>c0ffee00</RequestId></ResponseMetadata></DescribeStacksResponse>`;
const canned = (body: string) => ({
  response: {
    statusCode: 200,
    headers: { "content-type": "text/xml", "content-length": String(Buffer.byteLength(body)) },
    body: Readable.from([Buffer.from(body)]),
  },
});
const bodyOf = (request: { body?: unknown }) => (typeof request.body === "string" ? request.body : "");
const requestHandler = {
  metadata: { handlerProtocol: "http/1.1" },
  destroy: () => real.destroy(),
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's raw HttpRequest
  handle: async (request: any, options?: any) => {
    const host = String(request.hostname);
    if (host.startsWith("sts.")) return canned(identity);
    if (host.startsWith("ec2.") && bodyOf(request).includes("Action=DescribeRegions")) return canned(regions);
    if (host.startsWith("cloudformation.")) return canned(stacks);
    return real.handle(request, options);
  },
};

const started = performance.now();
const result = await runPreflight({
  regions: [
    {
      region: "us-west-2",
      needsServer: false,
      durationSeconds: 600,
      startsInSeconds: 0,
      vpc: true,
      largestFleet: 8,
    },
  ],
  parallelism: 1,
  expectedAgentCodeKey: () => null,
  credentials: {
    accessKeyId: "AKIAIOSFODNN7EXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  },
  requestHandler,
});
console.log(
  JSON.stringify({ seconds: (performance.now() - started) / 1000, ok: result.ok, items: result.items }),
);
