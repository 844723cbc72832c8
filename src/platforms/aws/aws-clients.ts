import { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { EC2Client } from "@aws-sdk/client-ec2";
import { IAMClient } from "@aws-sdk/client-iam";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { PricingClient } from "@aws-sdk/client-pricing";
import { ResourceGroupsTaggingAPIClient } from "@aws-sdk/client-resource-groups-tagging-api";
import { S3Client } from "@aws-sdk/client-s3";
import { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { SSMClient } from "@aws-sdk/client-ssm";
import { STSClient } from "@aws-sdk/client-sts";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, RequestHandler } from "@smithy/types";
import { attachCallRetries, type CallRetryPolicy, noRetries, patientRetries } from "./call-retries.js";
import { awsRequestHandler } from "./http-transport.js";
import { PlannedCallRecorder } from "./planned-calls.js";

/** How every AWS client of one command is built: one region, one credential source, one recorder. */
export interface AwsClientOptions {
  region: string;
  /**
   * Credentials: the memoized provider chain (credentials.ts), so temporary credentials (SSO,
   * assumed roles) are refreshed before they expire for the whole run; or fixed ones (tests).
   */
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * The command's --profile, given to every client as the SDK's `profile` (its config-file
   * settings; an expired login's advice names it). Without one the SDK's own default.
   */
  profile?: string;
  recorder?: PlannedCallRecorder;
  /** Replaces the HTTP transport (tests: a stub returning AWS's real responses). */
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: RequestHandler<any, any>;
  /**
   * How calls are retried (call-retries.ts; the SDK's own retries are off). Default: patient
   * retries, or none on a replaced transport (a test's stub answers each call as told).
   */
  retries?: CallRetryPolicy;
  /** S3-compatible endpoint (tests: s3rver), path-style. */
  s3Endpoint?: string;
  /** Longest synchronous invocation to wait for, seconds (function timeout plus a margin). */
  invokeTimeoutSeconds?: number;
  /**
   * Control-plane connection/response timeouts, ms. The preflight uses short ones so that
   * without network it answers in seconds instead of waiting on the SDK's defaults.
   */
  controlTimeouts?: { connectionMs: number; requestMs: number };
}

export interface AwsClients {
  region: string;
  recorder: PlannedCallRecorder;
  /** The retry policy every client here has (clients built beside them take the same). */
  retries: CallRetryPolicy;
  cloudFormation: CloudFormationClient;
  ec2: EC2Client;
  lambda: LambdaClient;
  quotas: ServiceQuotasClient;
  s3: S3Client;
  ssm: SSMClient;
  tagging: ResourceGroupsTaggingAPIClient;
  sts: STSClient;
  iam: IAMClient;
  logs: CloudWatchLogsClient;
  /** AWS's Price List Query API (the server's price when the table lacks it): always us-east-1. */
  pricing: PricingClient;
}

/** The Price List Query API answers from us-east-1 whatever region the command works in. */
const PRICING_REGION = "us-east-1";

/**
 * The Price List client: us-east-1, AWS_ENDPOINT_URL honoured by the SDK as for every client,
 * and short timeouts of its own, because the price only serves an estimate that must never hold
 * a command up.
 */
export function createPricingClient(
  options: Pick<
    AwsClientOptions,
    "credentials" | "profile" | "recorder" | "requestHandler" | "controlTimeouts" | "retries"
  >,
): PricingClient {
  const timeouts = options.controlTimeouts ?? { connectionMs: 3_000, requestMs: 8_000 };
  const client = new PricingClient({
    region: PRICING_REGION,
    credentials: options.credentials,
    ...(options.profile ? { profile: options.profile } : {}),
    maxAttempts: 1,
    requestHandler: options.requestHandler ?? awsRequestHandler(timeouts),
  });
  options.recorder?.attach(client, PRICING_REGION);
  // an estimate never waits long: two attempts at most, whatever the command's policy
  const policy = retryPolicy(options);
  attachCallRetries(client, {
    ...policy,
    throttleAttempts: Math.min(policy.throttleAttempts, 2),
    transientAttempts: Math.min(policy.transientAttempts, 2),
  });
  return client;
}

/** The policy asked for, else patient retries on AWS's own transport and none on a test's stub. */
export function retryPolicy(options: Pick<AwsClientOptions, "retries" | "requestHandler">): CallRetryPolicy {
  return options.retries ?? (options.requestHandler ? noRetries : patientRetries);
}

export function createAwsClients(options: AwsClientOptions): AwsClients {
  const recorder = options.recorder ?? new PlannedCallRecorder(false);
  const retries = retryPolicy(options);
  // the environment's proxy (HTTPS_PROXY...) too, which the SDK alone ignores
  const controlHandler = options.requestHandler ?? awsRequestHandler(options.controlTimeouts);
  const common = {
    region: options.region,
    credentials: options.credentials,
    ...(options.profile ? { profile: options.profile } : {}),
    // call-retries.ts retries instead, longer for throttling than the SDK would
    maxAttempts: 1,
    ...(controlHandler ? { requestHandler: controlHandler } : {}),
  };
  const invokeTimeoutMs = (options.invokeTimeoutSeconds ?? 960) * 1000;
  const clients: AwsClients = {
    region: options.region,
    recorder,
    retries,
    cloudFormation: new CloudFormationClient(common),
    ec2: new EC2Client(common),
    // Lambda: Invoke retries through the invoker (each retry counted in the record), the rest as every call
    lambda: new LambdaClient({
      ...common,
      requestHandler:
        options.requestHandler ??
        awsRequestHandler({
          requestMs: invokeTimeoutMs,
          connectionMs: options.controlTimeouts?.connectionMs ?? 10_000,
        }),
    }),
    quotas: new ServiceQuotasClient(common),
    s3: new S3Client({
      ...common,
      ...(options.s3Endpoint ? { endpoint: options.s3Endpoint, forcePathStyle: true } : {}),
    }),
    ssm: new SSMClient(common),
    tagging: new ResourceGroupsTaggingAPIClient(common),
    // the regional STS endpoint: works in every enabled region, fails clearly in a disabled one
    sts: new STSClient(common),
    // IAM is global; its client still takes a region for signing
    iam: new IAMClient(common),
    logs: new CloudWatchLogsClient(common),
    pricing: createPricingClient({ ...options, recorder }),
  };
  for (const client of regionalClients(clients)) {
    recorder.attach(client, options.region);
    attachCallRetries(client, retries);
  }
  return clients;
}

export function destroyAwsClients(clients: AwsClients): void {
  for (const client of [...regionalClients(clients), clients.pricing]) client.destroy();
}

/** The clients that work in the command's region (the recorder lists their calls under it). */
function regionalClients(clients: AwsClients) {
  const { cloudFormation, ec2, lambda, quotas, s3, ssm, tagging, sts, iam, logs } = clients;
  return [cloudFormation, ec2, lambda, quotas, s3, ssm, tagging, sts, iam, logs];
}
