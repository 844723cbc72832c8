import type { AwsCredentialIdentity, RequestHandler } from "@smithy/types";
import { type AwsClients, createAwsClients } from "../../platforms/aws/aws-clients.js";
import { resolveCredentials } from "../../platforms/aws/credentials.js";
import { PlannedCallRecorder } from "../../platforms/aws/planned-calls.js";

/**
 * What the AWS commands share: credentials resolved once (a clear error before any call),
 * one recorder for the whole command (so `--dry-run` lists every region's calls), clients
 * per region. Tests replace the transport and the credentials through `awsTestHooks`.
 */
export const awsTestHooks: {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: RequestHandler<any, any>;
  credentials?: AwsCredentialIdentity;
  fast?: boolean;
} = {};

export async function openAwsSession(dryRun: boolean) {
  const credentials = awsTestHooks.credentials ?? (await resolveCredentials());
  const recorder = new PlannedCallRecorder(dryRun);
  return {
    recorder,
    clientsFor(region: string): AwsClients {
      return createAwsClients({
        region,
        credentials,
        recorder,
        ...(awsTestHooks.requestHandler
          ? { requestHandler: awsTestHooks.requestHandler, maxAttempts: 1 }
          : {}),
      });
    },
    /** The `--dry-run` listing. */
    printPlan(): void {
      if (!dryRun) return;
      console.log("Dry run: the calls made (reads) and those a real run would make (would call):");
      for (const line of recorder.describe()) console.log(`  ${line}`);
    },
  };
}
