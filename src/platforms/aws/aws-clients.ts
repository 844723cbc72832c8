import { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { EC2Client } from "@aws-sdk/client-ec2";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { ResourceGroupsTaggingAPIClient } from "@aws-sdk/client-resource-groups-tagging-api";
import { S3Client } from "@aws-sdk/client-s3";
import { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { SSMClient } from "@aws-sdk/client-ssm";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, RequestHandler } from "@smithy/types";
import { PlannedCallRecorder } from "./planned-calls.js";

/** How every AWS client of one command is built: one region, one credential source, one recorder. */
export interface AwsClientOptions {
  region: string;
  /** Resolved credentials (see resolveCredentials): clients never start a credential lookup themselves. */
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
}

export function createAwsClients(options: AwsClientOptions): AwsClients {
  const recorder = options.recorder ?? new PlannedCallRecorder(false);
  const common = {
    region: options.region,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
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
        new NodeHttpHandler({ requestTimeout: invokeTimeoutMs, connectionTimeout: 10_000 }),
    }),
    quotas: new ServiceQuotasClient(common),
    s3: new S3Client({
      ...common,
      ...(options.s3Endpoint ? { endpoint: options.s3Endpoint, forcePathStyle: true } : {}),
    }),
    ssm: new SSMClient(common),
    tagging: new ResourceGroupsTaggingAPIClient(common),
  };
  for (const client of sdkClients(clients)) recorder.attach(client, options.region);
  return clients;
}

export function destroyAwsClients(clients: AwsClients): void {
  for (const client of sdkClients(clients)) client.destroy();
}

function sdkClients(clients: AwsClients) {
  const { cloudFormation, ec2, lambda, quotas, s3, ssm, tagging } = clients;
  return [cloudFormation, ec2, lambda, quotas, s3, ssm, tagging];
}
