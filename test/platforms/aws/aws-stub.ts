// biome-ignore-all lint/suspicious/noExplicitAny: walks untyped JSON documents and raw SDK transport objects

import { Readable } from "node:stream";
import { afterEach, beforeEach } from "node:test";
import type { AwsCommandDeps, AwsPacing } from "../../../src/cli/commands/aws-session.js";
import { type AwsClients, createAwsClients } from "../../../src/platforms/aws/aws-clients.js";
import type { DeployOptions } from "../../../src/platforms/aws/deploy.js";
import { PlannedCallRecorder } from "../../../src/platforms/aws/planned-calls.js";

/**
 * A stub of AWS's HTTP side for the real SDK clients: it parses each signed request into
 * service + operation + input, and answers with the status codes, headers and bodies AWS
 * sends for those operations (JSON 1.1 with `__type`, REST-JSON with `x-amzn-errortype`,
 * CloudFormation's query protocol with XML results and ErrorResponse documents).
 */
export interface StubRequest {
  service: string;
  operation: string;
  /** Parsed JSON body, query-protocol parameters, or {} */
  input: Record<string, unknown>;
  path: string;
  method: string;
  headers: Record<string, string>;
  /** Region from the endpoint host (service.region.amazonaws.com). */
  region?: string;
}
export interface StubResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | Buffer;
}
type Responder = StubResponse | ((request: StubRequest) => StubResponse);

const requestId = "c0ffee00-1111-2222-3333-444455556666";

export class AwsStub {
  readonly requests: StubRequest[] = [];
  private readonly queues = new Map<string, Responder[]>();
  private readonly defaults = new Map<string, Responder>();

  /** Answers the next call of `operation` (queued in order; the last one repeats). */
  on(operation: string, ...responders: Responder[]): this {
    this.queues.set(operation, [...(this.queues.get(operation) ?? []), ...responders]);
    return this;
  }

  operations(): string[] {
    return this.requests.map((request) => request.operation);
  }

  readonly handler = {
    metadata: { handlerProtocol: "http/1.1" },
    destroy: () => {},
    handle: async (request: any) => {
      const parsed = parseRequest(request);
      parsed.region = /\.([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com$/.exec(request.hostname ?? "")?.[1];
      this.requests.push(parsed);
      const queue = this.queues.get(parsed.operation);
      let responder: Responder | undefined;
      if (queue && queue.length > 1) responder = queue.shift();
      else if (queue && queue.length === 1) responder = queue[0];
      else responder = this.defaults.get(parsed.operation);
      if (!responder) throw new Error(`stub: no response for ${parsed.service}.${parsed.operation}`);
      const response = typeof responder === "function" ? responder(parsed) : responder;
      const body = Buffer.isBuffer(response.body) ? response.body : Buffer.from(response.body);
      return {
        response: {
          statusCode: response.statusCode,
          headers: {
            "x-amzn-requestid": requestId,
            "content-length": String(body.length),
            ...response.headers,
          },
          body: Readable.from([body]),
        },
      };
    },
  };
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return "";
  if (typeof body === "string") return body;
  // not Buffer.from(body): the SDK's JSON body adapter overrides valueOf
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  return "";
}

function parseRequest(request: any): StubRequest {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(request.headers ?? {}))
    headers[key.toLowerCase()] = String(value);
  const host: string = request.hostname ?? "";
  const service = /(^|\.)s3[.-]/.test(host) ? "s3" : (host.split(".")[0] ?? "");
  const path: string = request.path ?? "/";
  const method: string = request.method;
  const text = bodyText(request.body);
  const target = headers["x-amz-target"];
  if (target) {
    // JSON 1.0/1.1: X-Amz-Target: Prefix.Operation
    return {
      service,
      operation: target.split(".")[1] as string,
      input: text ? JSON.parse(text) : {},
      path,
      method,
      headers,
    };
  }
  if (service === "cloudformation" || service === "ec2" || service === "iam" || service === "sts") {
    const params = Object.fromEntries(new URLSearchParams(text));
    return { service, operation: params.Action as string, input: params, path, method, headers };
  }
  if (service === "lambda") {
    const input: Record<string, unknown> = text ? safeJson(text) : {};
    for (const [key, value] of Object.entries(request.query ?? {})) input[key] = value;
    return { service, operation: lambdaOperation(method, path), input, path, method, headers };
  }
  if (service === "s3") {
    const query = request.query ?? {};
    const operation =
      method === "HEAD"
        ? "HeadObject"
        : method === "PUT"
          ? "PutObject"
          : method === "POST" && "delete" in query
            ? "DeleteObjects"
            : method === "GET" && "versions" in query
              ? "ListObjectVersions"
              : method === "GET" && "uploads" in query
                ? "ListMultipartUploads"
                : `${method} ${path}`;
    return { service, operation, input: { host, ...query }, path, method, headers };
  }
  // REST-JSON services routed by path (Scheduler, ...): the JSON body is the input
  const input: Record<string, unknown> = text ? safeJson(text) : {};
  for (const [key, value] of Object.entries(request.query ?? {})) input[key] = value;
  return { service, operation: `${method} ${path}`, input, path, method, headers };
}

function safeJson(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

function lambdaOperation(method: string, path: string): string {
  if (/^\/20\d\d-\d\d-\d\d\/account-settings\/?$/.test(path)) return "GetAccountSettings";
  const rest = path.replace(/^\/20\d\d-\d\d-\d\d\/functions\/[^/]+/, "");
  const routes: [string, RegExp, string][] = [
    ["GET", /^$/, "GetFunction"],
    ["DELETE", /^$/, "DeleteFunction"],
    ["GET", /^\/configuration$/, "GetFunctionConfiguration"],
    ["PUT", /^\/configuration$/, "UpdateFunctionConfiguration"],
    ["PUT", /^\/code$/, "UpdateFunctionCode"],
    ["POST", /^\/versions$/, "PublishVersion"],
    ["GET", /^\/versions$/, "ListVersionsByFunction"],
    ["POST", /^\/aliases$/, "CreateAlias"],
    ["GET", /^\/aliases$/, "ListAliases"],
    ["GET", /^\/aliases\/[^/]+$/, "GetAlias"],
    ["PUT", /^\/aliases\/[^/]+$/, "UpdateAlias"],
    ["DELETE", /^\/aliases\/[^/]+$/, "DeleteAlias"],
    ["POST", /^\/invocations$/, "Invoke"],
  ];
  for (const [m, pattern, name] of routes) if (m === method && pattern.test(rest)) return name;
  return `${method} ${path}`;
}

// ---- responses as AWS sends them

export function json(body: unknown, statusCode = 200, headers: Record<string, string> = {}): StubResponse {
  return {
    statusCode,
    headers: { "content-type": "application/x-amz-json-1.1", ...headers },
    body: JSON.stringify(body),
  };
}

/** JSON 1.1 error (Service Quotas, SSM, tagging): `__type` in the body. */
export function jsonError(type: string, message: string, statusCode = 400): StubResponse {
  return json({ __type: type, message }, statusCode);
}

/** REST-JSON (Lambda) success. */
export function restJson(
  body: unknown,
  statusCode = 200,
  headers: Record<string, string> = {},
): StubResponse {
  return {
    statusCode,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  };
}

/** REST-JSON (Lambda) error: `x-amzn-errortype` header plus Type/message body. */
export function restJsonError(
  type: string,
  message: string,
  statusCode: number,
  extra: Record<string, unknown> = {},
): StubResponse {
  return {
    statusCode,
    headers: {
      "content-type": "application/json",
      "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazonaws.awslambda/`,
    },
    body: JSON.stringify({ Type: "User", message, ...extra }),
  };
}

const cfnNamespace = "http://cloudformation.amazonaws.com/doc/2010-05-15/";

/** CloudFormation (query protocol) success document. */
export function queryXml(action: string, resultXml: string): StubResponse {
  return {
    statusCode: 200,
    headers: { "content-type": "text/xml" },
    body: `<${action}Response xmlns="${cfnNamespace}">\n  <${action}Result>${resultXml}</${action}Result>\n  <ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>\n</${action}Response>`,
  };
}

export function queryError(code: string, message: string, statusCode = 400): StubResponse {
  return {
    statusCode,
    headers: { "content-type": "text/xml" },
    body: `<ErrorResponse xmlns="${cfnNamespace}">\n  <Error>\n    <Type>Sender</Type>\n    <Code>${code}</Code>\n    <Message>${message}</Message>\n  </Error>\n  <RequestId>${requestId}</RequestId>\n</ErrorResponse>`,
  };
}

export const stackId =
  "arn:aws:cloudformation:us-west-2:123456789012:stack/lambda-netbench/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

export function describeStacks(status: string, outputs: Record<string, string> = {}): StubResponse {
  const outputXml = Object.entries(outputs)
    .map(
      ([key, value]) => `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
    )
    .join("");
  return queryXml(
    "DescribeStacks",
    `<Stacks><member><StackName>lambda-netbench</StackName><StackId>${stackId}</StackId><CreationTime>2026-11-29T20:00:00.000Z</CreationTime><StackStatus>${status}</StackStatus><Outputs>${outputXml}</Outputs></member></Stacks>`,
  );
}

export const stackDoesNotExist = queryError(
  "ValidationError",
  "Stack with id lambda-netbench does not exist",
);

export const testCredentials = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
};

const ec2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/";

/** EC2 (its own query protocol): DescribeInstances with one instance in `state`. */
export function describeInstance(instanceId: string, state: string): StubResponse {
  return {
    statusCode: 200,
    headers: { "content-type": "text/xml;charset=UTF-8" },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstancesResponse xmlns="${ec2Namespace}"><requestId>${requestId}</requestId><reservationSet><item><reservationId>r-0123456789abcdef0</reservationId><instancesSet><item><instanceId>${instanceId}</instanceId><instanceState><code>48</code><name>${state}</name></instanceState></item></instancesSet></item></reservationSet></DescribeInstancesResponse>`,
  };
}

export function ec2Error(code: string, message: string): StubResponse {
  return {
    statusCode: 400,
    headers: { "content-type": "text/xml;charset=UTF-8" },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`,
  };
}

/** EC2 (its own query protocol) success document: `<ActionResponse>` with the given body. */
export function ec2Xml(action: string, innerXml: string): StubResponse {
  return {
    statusCode: 200,
    headers: { "content-type": "text/xml;charset=UTF-8" },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${ec2Namespace}"><requestId>${requestId}</requestId>${innerXml}</${action}Response>`,
  };
}

/** A default VPC with one default public subnet whose main route table reaches an internet gateway. */
export function defaultVpcResponses(
  stub: AwsStub,
  options: { defaultVpc?: boolean; igw?: boolean } = {},
): AwsStub {
  const vpc = "vpc-0a1b2c3d4e5f60718";
  return stub
    .on(
      "DescribeVpcs",
      ec2Xml(
        "DescribeVpcs",
        options.defaultVpc === false
          ? "<vpcSet/>"
          : `<vpcSet><item><vpcId>${vpc}</vpcId><isDefault>true</isDefault></item></vpcSet>`,
      ),
    )
    .on(
      "DescribeSubnets",
      ec2Xml(
        "DescribeSubnets",
        `<subnetSet><item><subnetId>subnet-0a1b2c3d4e5f60718</subnetId><vpcId>${vpc}</vpcId><availabilityZone>us-west-2a</availabilityZone><defaultForAz>true</defaultForAz><mapPublicIpOnLaunch>true</mapPublicIpOnLaunch></item></subnetSet>`,
      ),
    )
    .on(
      "DescribeInstanceTypeOfferings",
      ec2Xml(
        "DescribeInstanceTypeOfferings",
        `<instanceTypeOfferingSet>${["us-west-2a", "us-west-2b", "us-west-2c"].map((zone) => `<item><instanceType>c8gn.large</instanceType><locationType>availability-zone</locationType><location>${zone}</location></item>`).join("")}</instanceTypeOfferingSet>`,
      ),
    )
    .on("DescribeRouteTables", (request) =>
      ec2Xml(
        "DescribeRouteTables",
        JSON.stringify(request.input).includes("association.subnet-id")
          ? "<routeTableSet/>"
          : `<routeTableSet><item><routeTableId>rtb-0a1b2c3d</routeTableId><vpcId>${vpc}</vpcId><routeSet><item><destinationCidrBlock>0.0.0.0/0</destinationCidrBlock><gatewayId>${options.igw === false ? "nat-0a1b2c3d" : "igw-0a1b2c3d"}</gatewayId></item></routeSet></item></routeTableSet>`,
      ),
    );
}

/** STS GetCallerIdentity as AWS answers it (query protocol, XML). */
export function callerIdentity(account = "123456789012"): StubResponse {
  return {
    statusCode: 200,
    headers: { "content-type": "text/xml" },
    body: `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:sts::${account}:assumed-role/Operator/alice</Arn><UserId>AROAEXAMPLE:alice</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
  };
}

/** STS (query protocol) error, e.g. ExpiredToken with status 403. */
export function stsError(code: string, message: string, statusCode = 403): StubResponse {
  return {
    statusCode,
    headers: { "content-type": "text/xml" },
    body: `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
  };
}

/** EC2 DescribeRegions with one region and its opt-in status. */
export function describeRegion(region: string, optInStatus: string): StubResponse {
  return ec2Xml(
    "DescribeRegions",
    `<regionInfo><item><regionName>${region}</regionName><regionEndpoint>ec2.${region}.amazonaws.com</regionEndpoint><optInStatus>${optInStatus}</optInStatus></item></regionInfo>`,
  );
}

/** Lambda GetAccountSettings (REST-JSON). */
export function accountSettings(concurrentExecutions: number, unreserved: number): StubResponse {
  return restJson({
    AccountLimit: {
      TotalCodeSize: 80530636800,
      CodeSizeUnzipped: 262144000,
      CodeSizeZipped: 52428800,
      ConcurrentExecutions: concurrentExecutions,
      UnreservedConcurrentExecutions: unreserved,
    },
    AccountUsage: { TotalCodeSize: 1024, FunctionCount: 1 },
  });
}

/**
 * Every SDK client the platform code takes, on `stub` with test credentials; one attempt per call
 * (the stub answers at once; a test that wants retries builds its clients itself).
 */
export function stubbedClients(
  stub: AwsStub,
  options: { region?: string; dryRun?: boolean } = {},
): AwsClients {
  return createAwsClients({
    region: options.region ?? "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    recorder: new PlannedCallRecorder(options.dryRun === true),
  });
}

/**
 * Waits for a stub that answers at once: stacks and waiters looked at every millisecond (the
 * SDK's waiters count in whole seconds), teardown's tagging check tried twice.
 */
export const stubPacing: AwsPacing = {
  stackPoll: { pollIntervalMs: 1, timeoutMs: 5_000 },
  serverReady: { pollIntervalMs: 1, timeoutMs: 5_000 },
  waiter: { minDelaySeconds: 1, maxDelaySeconds: 1, maxWaitSeconds: 5 },
  teardownChecks: { attempts: 2, intervalMs: 1 },
};

/** deployStack's options for a stack without a server or VPC function, waiting as `stubPacing`. */
export const stubDeployOptions: DeployOptions = {
  arch: "arm64",
  memoryMb: 2048,
  timeoutSeconds: 900,
  server: null,
  agent: { zip: Buffer.from("PK-zip-bytes"), sha256: "abc", key: "agent/abc.zip" },
  testObjectBytes: null,
  stackPoll: stubPacing.stackPoll,
  serverReady: stubPacing.serverReady,
};

/** The AWS commands' dependencies on `stub`: its transport, test credentials, short waits if `fast`. */
export function stubbedAwsDeps(stub: AwsStub, options: { fast?: boolean } = {}): AwsCommandDeps {
  return {
    requestHandler: stub.handler,
    credentials: testCredentials,
    ...(options.fast ? { pacing: stubPacing } : {}),
  };
}

/** Runs the CLI in-process as typed (`run("deploy", "--region", "us-west-2")`), every AWS call on `stub`. */
export type StubbedCli = (...argv: string[]) => Promise<unknown>;

export function stubbedCli(stub: AwsStub, options: { fast?: boolean } = {}): StubbedCli {
  return async (...argv) => {
    // loaded on first use: the whole program brings in every command's modules
    const { buildProgram } = await import("../../../src/cli/main.js");
    return buildProgram({ aws: stubbedAwsDeps(stub, options) }).parseAsync([
      "node",
      "lambda-netbench",
      ...argv,
    ]);
  };
}

/** What one test of the CLI on the stubbed transport sees: the stub, the CLI on it, every console line. */
export interface StubbedAwsSession {
  stub: AwsStub;
  run: StubbedCli;
  out: string[];
}

/**
 * The set-up every CLI test on stubbed AWS shares, per test: a fresh AwsStub and the CLI with it
 * as the SDK clients' transport, test credentials, short waits when `fast`; console.log and
 * console.error captured; afterwards the console restored and the exit code reset.
 * `onEach` receives the session before each test (assign it to the describe block's variables).
 */
export function useStubbedAws(
  onEach: (session: StubbedAwsSession) => void,
  options: { fast?: boolean } = {},
): void {
  const original = { log: console.log, error: console.error };
  beforeEach(() => {
    const stub = new AwsStub();
    const session: StubbedAwsSession = { stub, run: stubbedCli(stub, options), out: [] };
    console.log = (...args: unknown[]) => session.out.push(args.join(" "));
    console.error = (...args: unknown[]) => session.out.push(args.join(" "));
    onEach(session);
  });
  afterEach(() => {
    console.log = original.log;
    console.error = original.error;
    process.exitCode = 0;
  });
}

/** The agent function as a current stack leaves it ($LATEST at 2,048 MB, arm64). */
export const deployedAgentConfig = {
  FunctionName: "lambda-netbench-agent",
  Runtime: "nodejs22.x",
  MemorySize: 2048,
  Architectures: ["arm64"],
  State: "Active",
  LastUpdateStatus: "Successful",
};

/**
 * A region where `deploy --with-server` ran: the stack's outputs, the server's SSM secrets and
 * ready status, the default quota, and the agent's versions and run aliases. Invoke is the
 * caller's (each test answers it its own way).
 */
export function deployedRegion(options: {
  secrets: { privateKeyPem: string; password: string };
  padding: "pkcs1" | "oaep";
  serverExpiresAt: string;
}): AwsStub {
  const quota = {
    Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 625 },
  };
  const status = JSON.stringify({
    version: "3.16",
    padding: options.padding,
    ports: "5201-5201",
    instanceId: "i-1",
  });
  const config = deployedAgentConfig;
  return new AwsStub()
    .on(
      "DescribeStacks",
      describeStacks("UPDATE_COMPLETE", {
        BucketName: "lambda-netbench-bucket-1a2b3c",
        FunctionName: "lambda-netbench-agent",
        AgentCodeKey: "agent/abc.zip",
        ServerPublicIp: "198.18.0.1",
        ServerPorts: "5201-5201",
        ServerExpiresAt: options.serverExpiresAt,
        ServerInstanceId: "i-1",
      }),
    )
    .on("GetParameter", (request) => {
      const name = String(request.input.Name);
      const value = name.endsWith("private-key")
        ? options.secrets.privateKeyPem
        : name.endsWith("password")
          ? options.secrets.password
          : status;
      return json({ Parameter: { Name: name, Type: "SecureString", Value: value } });
    })
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json(quota))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
    .on("GetFunctionConfiguration", restJson(config))
    .on("UpdateFunctionConfiguration", restJson(config))
    .on("GetFunction", restJson({ Configuration: config }))
    .on("PublishVersion", restJson({ ...config, Version: "3" }, 201))
    .on("GetAlias", restJson({ Name: "m2048-arm64", FunctionVersion: "2" }))
    .on("UpdateAlias", restJson({ Name: "m2048-arm64", FunctionVersion: "3" }));
}
