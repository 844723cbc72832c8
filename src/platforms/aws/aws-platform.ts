import type { AwsCredentialIdentity, RequestHandler } from "@smithy/types";
import type { AgentEventInput } from "../../agent/event.js";
import type { Iperf3Auth } from "../../probes/iperf3/options.js";
import { iperf3ServerSeconds } from "../../probes/registry.js";
import type { BackoffOptions } from "../../probes/retry-backoff.js";
import type { InvocationOutcome } from "../../results/invocation-outcome.js";
import type { PlatformFacts } from "../../results/platform-facts.js";
import type { EnvironmentVariant, Platform, ProbeEndpoints } from "../../runner/platform.js";
import { RunPausedError } from "../../runner/platform.js";
import { type AwsClients, createAwsClients, destroyAwsClients } from "./aws-clients.js";
import { validateMemoryMb, validateRegion } from "./aws-input.js";
import { errorName } from "./backoff.js";
import { resolveCredentials } from "./credentials.js";
import { CredentialsExpiredError } from "./expired-credentials.js";
import { deleteAliasAndVersion } from "./function-aliases.js";
import { latestFromStackOutputs, type PublishedVariant, publishVariants } from "./function-versions.js";
import { fetchIperf3Auth } from "./iperf3-credentials.js";
import { invokeAgent } from "./lambda-invoker.js";
import { aliasName, functionName, s3PutKeyPrefix, stackName } from "./naming.js";
import type { PlannedCallRecorder } from "./planned-calls.js";
import { getQuotaReport, type QuotaReport } from "./quota.js";
import { describeStack, type StackState } from "./stack-state.js";
import { ensureTestObject } from "./test-object.js";
import { vpcServerHost, vpcVariantProblem } from "./vpc-cells.js";

export interface AwsPlatformOptions {
  region: string;
  /** Default: the standard AWS chain (environment, profile, role), resolved before any call. */
  credentials?: AwsCredentialIdentity;
  /** The command's --profile: the chain's and the clients' (without: AWS_PROFILE or `default`, as the SDK does). */
  profile?: string;
  /** `--dry-run`: a recorder that holds back every call that would change something. */
  recorder?: PlannedCallRecorder;
  /** How many invocations at once (each runs in its own execution environment). */
  maxConcurrency?: number;
  /** Tests: the stubbed transport. */
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: RequestHandler<any, any>;
  waiter?: { minDelaySeconds: number; maxDelaySeconds: number; maxWaitSeconds: number };
  backoff?: Partial<BackoffOptions>;
  /** Waits before retrying an iperf3 test the server refused as busy (tests: short). */
  serverBusyRetryMs?: number[];
  log?: (line: string) => void;
}

/** Parses the stack's `ServerPorts` output ("5201-5204") into the port list. */
export function parsePorts(range: string | undefined): number[] {
  const match = /^(\d+)-(\d+)$/.exec(range ?? "");
  if (!match) return [];
  const ports: number[] = [];
  for (let port = Number(match[1]); port <= Number(match[2]); port++) ports.push(port);
  return ports;
}

/**
 * The AWS platform: execution environments are invocations of the deployed agent function,
 * one published version (alias) per memory size and architecture. Needs the region's stack
 * (`lambda-netbench deploy --region R`).
 */
export class AwsPlatform implements Platform {
  readonly name = "aws" as const;
  /** Keyed by function and alias: the VPC function has aliases of the same names. */
  private published = new Map<string, PublishedVariant & { functionName: string }>();

  private constructor(
    readonly target: string,
    private readonly clients: AwsClients,
    private readonly stack: StackState,
    private readonly auth: Iperf3Auth | null,
    private readonly quota: QuotaReport | null,
    private readonly quotaError: string | null,
    private readonly options: AwsPlatformOptions,
  ) {}

  static async open(options: AwsPlatformOptions): Promise<AwsPlatform> {
    const region = validateRegion(options.region);
    if (
      options.maxConcurrency !== undefined &&
      !(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1)
    )
      throw new Error(
        `maxConcurrency: ${options.maxConcurrency} is not allowed (allowed: a whole number from 1)`,
      );
    const credentials = options.credentials ?? (await resolveCredentials(options.profile));
    const clients = createAwsClients({
      region,
      credentials,
      ...(options.profile ? { profile: options.profile } : {}),
      ...(options.recorder ? { recorder: options.recorder } : {}),
      ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
    });
    try {
      const stack = await describeStack(clients.cloudFormation);
      if (!stack?.outputs.FunctionName || !stack.outputs.BucketName)
        throw new Error(
          `no usable ${stackName} stack in ${region}${stack ? ` (status ${stack.status})` : ""}: run \`lambda-netbench deploy --region ${region}\` first`,
        );
      const auth = stack.outputs.ServerPorts ? await fetchIperf3Auth(clients.ssm) : null;
      let quota: QuotaReport | null = null;
      let quotaError: string | null = null;
      try {
        quota = await getQuotaReport(clients.quotas, region);
      } catch (error) {
        quotaError = `${errorName(error)}: ${(error as Error).message}`;
      }
      return new AwsPlatform(region, clients, stack, auth, quota, quotaError, options);
    } catch (error) {
      destroyAwsClients(clients);
      throw error;
    }
  }

  async facts(): Promise<PlatformFacts> {
    const outputs = this.stack.outputs;
    return {
      platform: "aws",
      target: this.target,
      emulated: false,
      unshaped: false,
      quotaBitsPerSecond: this.quota?.valueMbps != null ? this.quota.valueMbps * 1_000_000 : null,
      details: {
        functionName: outputs.FunctionName,
        functionArchitecture: outputs.FunctionArchitecture ?? null,
        agentCodeKey: outputs.AgentCodeKey ?? null,
        bucket: outputs.BucketName,
        stackStatus: this.stack.status,
        iperf3Server: outputs.ServerPorts
          ? {
              instanceType: outputs.ServerInstanceType ?? null,
              expiresAt: outputs.ServerExpiresAt ?? null,
              authenticated: this.auth !== null,
              padding: this.auth?.padding ?? null,
            }
          : null,
        quota: this.quota
          ? {
              code: this.quota.quotaCode,
              matchedBy: this.quota.matchedBy,
              valueMbps: this.quota.valueMbps,
              defaultMbps: this.quota.defaultMbps,
            }
          : { error: this.quotaError },
        vpcFunction: outputs.VpcFunctionName
          ? {
              functionName: outputs.VpcFunctionName,
              vpcId: outputs.VpcId ?? null,
              subnetIds: outputs.VpcSubnetIds?.split(",") ?? [],
              securityGroupId: outputs.VpcSecurityGroupId ?? null,
              // iperf3 from the VPC function: the server's private address in its own VPC
              iperf3Address:
                outputs.ServerVpcId === outputs.VpcId && outputs.ServerPrivateIp ? "private" : "public",
            }
          : null,
        publishedVersions: [...this.published.values()].map((p) => ({
          functionName: p.functionName,
          alias: p.alias,
          version: p.version,
        })),
      },
    };
  }

  /** A cap only: the plan's parallelism (default 1) applies, checked by the preflight. */
  maxConcurrency(): number {
    return this.options.maxConcurrency ?? 10;
  }

  async prepare(variants: EnvironmentVariant[]): Promise<void> {
    for (const [index, variant] of variants.entries())
      validateMemoryMb(variant.memoryMb, `variants[${index}].memoryMb`);
    const codeKey = this.stack.outputs.AgentCodeKey;
    const bucket = this.stack.outputs.BucketName as string;
    if (!codeKey) throw new Error(`the ${stackName} stack has no AgentCodeKey output: run deploy again`);
    // before any change or invocation: a VPC variant needs the stack's VPC function
    const problem = vpcVariantProblem(variants, this.stack.outputs, this.target);
    if (problem) throw new Error(problem);
    for (const vpc of [false, true]) {
      const mine = variants.filter((variant) => (variant.vpc ?? false) === vpc);
      if (mine.length === 0) continue;
      const name = this.functionFor({ vpc });
      const published = await publishVariants(this.clients.lambda, mine, {
        code: { bucket, key: codeKey },
        waiter: this.options.waiter ?? { minDelaySeconds: 1, maxDelaySeconds: 10, maxWaitSeconds: 300 },
        ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
        ...(this.options.log ? { log: this.options.log } : {}),
        dryRun: this.clients.recorder.dryRun,
        functionName: name,
        stackLatest: latestFromStackOutputs(this.stack.outputs),
      });
      for (const entry of published)
        this.published.set(`${name}:${entry.alias}`, {
          ...entry,
          variant: { ...entry.variant, ...(vpc ? { vpc } : {}) },
          functionName: name,
        });
    }
  }

  /** The agent outside a VPC, or (variant.vpc) the one deploy attached to the VPC. */
  private functionFor(variant: Pick<EnvironmentVariant, "vpc">): string {
    return variant.vpc ? (this.stack.outputs.VpcFunctionName as string) : functionName;
  }

  endpoints(): ProbeEndpoints {
    const outputs = this.stack.outputs;
    const host = outputs.ServerPublicDnsName || outputs.ServerPublicIp;
    return {
      ...(host && this.auth
        ? { iperf3: { host, ports: parsePorts(outputs.ServerPorts), auth: this.auth } }
        : {}),
      s3: {
        region: this.target,
        bucket: outputs.BucketName as string,
        pathStyle: false,
        // s3-put writes only under this prefix: the agent role may write there and the
        // bucket's lifecycle rule expires what is left there
        putKeyPrefix: s3PutKeyPrefix,
      },
    };
  }

  async ensureTestObject(bytes: number): Promise<string> {
    return ensureTestObject(
      this.clients.s3,
      { bucket: this.stack.outputs.BucketName as string, region: this.target },
      bytes,
      (event) => invokeAgent(this.clients.lambda, "$LATEST", event, this.invokeOptions()),
    );
  }

  async invoke(
    variant: EnvironmentVariant,
    event: AgentEventInput,
    options: { signal?: AbortSignal } = {},
  ): Promise<InvocationOutcome> {
    const alias = aliasName(variant.memoryMb, variant.arch);
    const target = this.functionFor(variant);
    if (!this.published.has(`${target}:${alias}`))
      return {
        response: null,
        failure: {
          kind: "platform",
          message: `${target}:${alias} was not prepared (call prepare() with this variant first)`,
        },
        startedAt: new Date().toISOString(),
        durationSeconds: 0,
      };
    if (this.clients.recorder.dryRun) {
      // recorded as a planned call; nothing runs and nothing is measured
      await invokeAgent(this.clients.lambda, alias, event, { ...this.invokeOptions(), functionName: target });
      return {
        response: null,
        failure: { kind: "platform", message: `dry run: Invoke of ${alias} not made` },
        startedAt: new Date().toISOString(),
        durationSeconds: 0,
      };
    }
    this.checkServerTimeToLive(event);
    // in the server's VPC, the VPC function reaches it at its private address
    const sent = variant.vpc ? vpcServerHost(event, this.stack.outputs) : event;
    const delays = this.options.serverBusyRetryMs ?? [5_000, 10_000, 20_000, 40_000];
    for (let attempt = 0; ; attempt++) {
      const outcome = await invokeAgent(this.clients.lambda, alias, sent, {
        ...this.invokeOptions(),
        ...options,
        functionName: target,
      });
      const response = outcome.response;
      // another test (or a port scanner) holds the server's port: the server's --idle-timeout
      // frees it soon, so wait and try again rather than record a failure
      const busy = response !== null && !response.ok && response.error.kind === "server-busy";
      if (busy && attempt < delays.length && !options.signal?.aborted) {
        this.options.log?.(`iperf3 server busy; trying again in ${(delays[attempt] ?? 0) / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
        continue;
      }
      // a failure once the server's time-to-live has passed is the server being gone, not the
      // cell failing: pause the run so --resume redoes it
      if (!(response?.ok === true)) this.checkServerTimeToLive(event, 0);
      return outcome;
    }
  }

  /**
   * The iperf3 server terminates itself at its time-to-live: an iperf3 cell that could not finish
   * before then pauses the run (not recorded) with how to extend it, instead of failing every
   * remaining cell and counting them as done.
   */
  private checkServerTimeToLive(event: AgentEventInput, marginSeconds = 60): void {
    const serverSeconds = iperf3ServerSeconds(event);
    if (serverSeconds === null) return;
    const expiresAt = Date.parse(this.stack.outputs.ServerExpiresAt ?? "");
    if (!Number.isFinite(expiresAt)) return;
    const needed = Date.now() + (serverSeconds + marginSeconds) * 1000;
    if (needed > expiresAt)
      throw new RunPausedError(
        `the iperf3 server in ${this.target} terminates itself at ${this.stack.outputs.ServerExpiresAt}: extend it with \`lambda-netbench deploy --region ${this.target} --with-server --ttl-hours N\`, then resume`,
      );
  }

  private invokeOptions(): { backoff?: Partial<BackoffOptions> } {
    return this.options.backoff ? { backoff: this.options.backoff } : {};
  }

  /** Deletes the aliases and versions this instance published, then closes the clients. */
  async dispose(): Promise<void> {
    try {
      for (const entry of this.published.values()) {
        await deleteAliasAndVersion(this.clients.lambda, entry.functionName, {
          name: entry.alias,
          version: entry.version,
        }).catch((error: unknown) => {
          // the run is pausing for a new login anyway: what is left goes with the next teardown
          if (!(error instanceof CredentialsExpiredError)) throw error;
          this.options.log?.(
            `${entry.functionName}:${entry.alias} (version ${entry.version}) left in place: the credentials expired (teardown removes it)`,
          );
        });
      }
      this.published.clear();
    } finally {
      destroyAwsClients(this.clients);
    }
  }

  /** Calls made so far (for --dry-run output and tests). */
  get recorder(): PlannedCallRecorder {
    return this.clients.recorder;
  }
}
