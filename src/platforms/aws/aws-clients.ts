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
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, RequestHandler } from "@smithy/types";
import { PlannedCallRecorder } from "./planned-calls.js";

/** How every AWS client of one command is built: one region, one credential source, one recorder. */
export interface AwsClientOptions {
  region: string;
  /**
   * Credentials: the memoized provider chain (credentials.ts), so temporary credentials (SSO,
   * assumed roles) are refreshed before they expire for the whole run; or fixed ones (tests).
   */
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  recorder?: PlannedCallRecorder;
  /** Replaces the HTTP transport (tests: a stub returning AWS's real responses). */
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: RequestHandler<any, any>;
  /** SDK retry attempts for control-plane calls (Lambda calls retry through our own backoff). */
  maxAttempts?: number;
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
    "credentials" | "recorder" | "requestHandler" | "controlTimeouts" | "maxAttempts"
  >,
): PricingClient {
  const timeouts = options.controlTimeouts ?? { connectionMs: 3_000, requestMs: 8_000 };
  const client = new PricingClient({
    region: PRICING_REGION,
    credentials: options.credentials,
    maxAttempts: Math.min(options.maxAttempts ?? 2, 2),
    requestHandler:
      options.requestHandler ??
      new NodeHttpHandler({ connectionTimeout: timeouts.connectionMs, requestTimeout: timeouts.requestMs }),
  });
  options.recorder?.attach(client, PRICING_REGION);
  return client;
}

export function createAwsClients(options: AwsClientOptions): AwsClients {
  const recorder = options.recorder ?? new PlannedCallRecorder(false);
  const controlHandler =
    options.requestHandler ??
    (options.controlTimeouts
      ? new NodeHttpHandler({
          connectionTimeout: options.controlTimeouts.connectionMs,
          requestTimeout: options.controlTimeouts.requestMs,
        })
      : undefined);
  const common = {
    region: options.region,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    ...(controlHandler ? { requestHandler: controlHandler } : {}),
  };
  const invokeTimeoutMs = (options.invokeTimeoutSeconds ?? 960) * 1000;
  const clients: AwsClients = {
    region: options.region,
    recorder,
    cloudFormation: new CloudFormationClient(common),
    ec2: new EC2Client(common),
    // Lambda: no SDK retries; withBackoff retries throttling and conflicts so each retry is counted.
    lambda: new LambdaClient({
      ...common,
      maxAttempts: 1,
      requestHandler:
        options.requestHandler ??
        new NodeHttpHandler({
          requestTimeout: invokeTimeoutMs,
          connectionTimeout: options.controlTimeouts?.connectionMs ?? 10_000,
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
  for (const client of regionalClients(clients)) recorder.attach(client, options.region);
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
