import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import {
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  type GetFunctionConfigurationCommandOutput,
  type LambdaClient,
} from "@aws-sdk/client-lambda";
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { AgentEventInput } from "../../src/agent/event.js";
import type { Architecture } from "../../src/plan/architecture.js";
import type { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { runCommand } from "../../src/platforms/local/run-command.js";
import type { InvocationOutcome } from "../../src/results/invocation-outcome.js";

/**
 * Lambda Invoke for our functions, which moto cannot run without Docker: the invocation runs in
 * the local lab, in an environment shaped for the memory size and architecture moto holds for
 * the version or alias invoked (GetFunctionConfiguration), on the very bytes moto stores as that
 * version's code: the zip is read back from the bucket the stack deployed it to, its SHA-256 must
 * equal the CodeSha256 moto computed when the version was created, and the bundle it carries is
 * what the lab loads. The answer has Lambda's shape: the agent's JSON, or FunctionError with
 * Lambda's error types when the environment timed out, ran out of memory or crashed.
 */

export const BRIDGED_FUNCTIONS = new Set(["lambda-netbench-agent", "lambda-netbench-agent-vpc"]);

export interface LambdaAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Where the stack's published addresses are reached from inside the lab. */
export interface LabAddresses {
  /** The server's public address as the stack publishes it, and the same server seen from the lab. */
  instancePublic: string;
  instanceInLab: string;
  /** moto's S3, as the lab's environments reach it. */
  s3EndpointInLab: string;
}

export interface BridgedInvocation {
  functionName: string;
  qualifier: string;
  version: string;
  memoryMb: number;
  arch: string;
  codeSha256: string;
  /** The zip read back from S3 and the bundle unzipped from it, which the lab loaded. */
  zipPath: string;
  bundlePath: string;
  probe: string;
  outcome: InvocationOutcome;
}

export class InvokeBridge {
  /** Every invocation bridged so far (tests assert memory, architecture and code against it). */
  readonly invocations: BridgedInvocation[] = [];
  /**
   * Other addresses the server is published at that the lab's environments reach it by (as
   * AWS's network reaches an instance this machine's egress cannot).
   */
  readonly serverAliases = new Set<string>();

  constructor(
    private readonly lab: LocalPlatform,
    private readonly moto: { lambda: LambdaClient; s3: S3Client; cloudFormation: CloudFormationClient },
    private readonly addresses: LabAddresses,
    private readonly codeDir: string,
    private readonly region: string,
  ) {}

  async invoke(functionName: string, qualifier: string, payload: string): Promise<LambdaAnswer> {
    let config: GetFunctionConfigurationCommandOutput;
    try {
      config = await this.moto.lambda.send(
        new GetFunctionConfigurationCommand({ FunctionName: functionName, Qualifier: qualifier }),
      );
    } catch (error) {
      return lambdaError(404, "ResourceNotFoundException", (error as Error).message);
    }
    const bundlePath = await this.bundleFor(functionName, qualifier, config.CodeSha256 ?? "");
    let event: AgentEventInput;
    try {
      event = this.translate(JSON.parse(payload) as AgentEventInput);
    } catch (error) {
      return lambdaError(
        400,
        "InvalidRequestContentException",
        `Could not parse request body into json: ${(error as Error).message}`,
      );
    }
    const variant = {
      memoryMb: config.MemorySize ?? 128,
      arch: (config.Architectures?.[0] ?? "x86_64") as Architecture,
    };
    const outcome = await this.lab.invoke(variant, event, {
      timeoutSeconds: config.Timeout ?? 3,
      code: { bundlePath, functionName, functionVersion: config.Version ?? "$LATEST", region: this.region },
    });
    this.invocations.push({
      functionName,
      qualifier,
      version: config.Version ?? "$LATEST",
      memoryMb: variant.memoryMb,
      arch: variant.arch,
      codeSha256: config.CodeSha256 ?? "",
      zipPath: join(dirname(bundlePath), "code.zip"),
      bundlePath,
      probe: String(event.probe),
      outcome,
    });
    return answerOf(outcome, config.Version ?? "$LATEST");
  }

  /**
   * The version's own code: read from the stack's bucket by the key moto recorded for it, checked
   * against moto's CodeSha256, unzipped once per hash.
   */
  private async bundleFor(functionName: string, qualifier: string, codeSha256: string): Promise<string> {
    const hex = Buffer.from(codeSha256, "base64").toString("hex");
    const dir = join(this.codeDir, hex);
    const bundle = join(dir, "index.mjs");
    if (existsSync(bundle)) return bundle;
    const fn = await this.moto.lambda.send(
      new GetFunctionCommand({ FunctionName: functionName, Qualifier: qualifier }),
    );
    const key = new URL(fn.Code?.Location ?? "").pathname.replace(/^\//, "");
    const stacks = await this.moto.cloudFormation.send(
      new DescribeStacksCommand({ StackName: "lambda-netbench" }),
    );
    const bucket = stacks.Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === "BucketName")?.OutputValue;
    const object = await this.moto.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const zip = Buffer.from(
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    const actual = createHash("sha256").update(zip).digest("base64");
    if (actual !== codeSha256)
      throw new Error(
        `s3://${bucket}/${key} has SHA-256 ${actual}, but moto holds ${codeSha256} as the code of ${functionName}:${qualifier}`,
      );
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "code.zip"), zip);
    await runCommand("unzip", ["-o", "-q", join(dir, "code.zip"), "-d", dir]);
    if (!existsSync(bundle)) throw new Error(`the zip of ${functionName}:${qualifier} holds no index.mjs`);
    return bundle;
  }

  /** The stack's server address and AWS's S3, as the lab's environments reach them. */
  private translate(event: AgentEventInput): AgentEventInput {
    const serverHost = (host: string) =>
      host === this.addresses.instancePublic || this.serverAliases.has(host);
    if ((event.probe === "iperf3" || event.probe === "tcp-connect") && serverHost(event.host))
      return { ...event, host: this.addresses.instanceInLab };
    if ((event.probe === "s3-get" || event.probe === "s3-put") && !event.endpoint)
      return { ...event, endpoint: this.addresses.s3EndpointInLab };
    return event;
  }
}

function lambdaError(status: number, type: string, message: string): LambdaAnswer {
  return {
    status,
    headers: { "content-type": "application/json", "x-amzn-errortype": type },
    body: JSON.stringify({ Type: "User", message }),
  };
}

/** Lambda's answer for what the environment did. */
export function answerOf(outcome: InvocationOutcome, version: string): LambdaAnswer {
  const headers = { "content-type": "application/json", "x-amz-executed-version": version };
  if (outcome.response) return { status: 200, headers, body: JSON.stringify(outcome.response) };
  const failure = outcome.failure ?? { kind: "platform", message: "no response" };
  const errorType = {
    timeout: "Sandbox.Timedout",
    "out-of-memory": "Runtime.OutOfMemory",
    "function-error": "Runtime.ExitError",
  }[failure.kind as string];
  if (!errorType)
    return {
      status: 500,
      headers: { "content-type": "application/json", "x-amzn-errortype": "ServiceException" },
      body: JSON.stringify({ Type: "Service", message: `rehearsal lab: ${failure.message}` }),
    };
  return {
    status: 200,
    headers: { ...headers, "x-amz-function-error": "Unhandled" },
    body: JSON.stringify({ errorType, errorMessage: failure.message }),
  };
}
