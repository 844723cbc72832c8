import type { AwsCredentialIdentity, RequestHandler } from "@smithy/types";
import type { AwsClients } from "../../platforms/aws/aws-clients.js";

/**
 * What the AWS commands share: credentials resolved once (a clear error before any call),
 * one recorder for the whole command (so `--dry-run` lists every region's calls), clients
 * per region. Tests replace the transport and the credentials through `awsTestHooks`.
 * The SDK is loaded only when an AWS command runs, so every other command starts fast.
 */
export const awsTestHooks: {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: RequestHandler<any, any>;
  credentials?: AwsCredentialIdentity;
  fast?: boolean;
  /** The preflight's iperf3 handshake (tests: no real server). */
  handshake?: (host: string, port: number) => Promise<string>;
} = {};

export async function openAwsSession(dryRun: boolean) {
  const [{ createAwsClients, destroyAwsClients }, { resolveCredentials }, { PlannedCallRecorder }] =
    await Promise.all([
      import("../../platforms/aws/aws-clients.js"),
      import("../../platforms/aws/credentials.js"),
      import("../../platforms/aws/planned-calls.js"),
    ]);
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
    release(clients: AwsClients): void {
      destroyAwsClients(clients);
    },
    /** The `--dry-run` listing. */
    printPlan(): void {
      if (!dryRun) return;
      console.log("Dry run: the calls made (reads) and those a real run would make (would call):");
      for (const line of recorder.describe()) console.log(`  ${line}`);
    },
  };
}
