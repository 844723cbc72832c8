import type { AwsCredentialIdentity, RequestHandler } from "@smithy/types";
import type { AwsClients } from "../../platforms/aws/aws-clients.js";
import type { ScheduleClients } from "../../scheduled-studies/schedule-clients.js";

/**
 * What the AWS commands take from outside instead of the SDK's defaults. Every field is optional
 * and a real run passes none: the SDK's transport, its credential chain and each operation's own
 * waits. Tests pass a stub of AWS as the transport, fixed credentials and short waits.
 */
export interface AwsCommandDeps {
  /** Every SDK client's transport. With one given, each call is tried once (no SDK retries). */
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: RequestHandler<any, any>;
  /** Used instead of the SDK's credential chain (environment, profile, SSO). */
  credentials?: AwsCredentialIdentity;
  /**
   * The command's `--profile`, handed to the credential chain and every client as an argument
   * (process.env is never written); without one the SDK's default (AWS_PROFILE, else `default`).
   */
  profile?: string;
  /** Waits on AWS shorter than each operation's own, for a transport that answers at once. */
  pacing?: AwsPacing;
}

/** How long the commands wait for what AWS is still doing, and how often they look. */
export interface AwsPacing {
  /** A stack being created, updated or deleted (deploy, teardown, schedule create and delete). */
  stackPoll: { pollIntervalMs: number; timeoutMs: number };
  /** The iperf3 server publishing its ready status after deploy. */
  serverReady: { pollIntervalMs: number; timeoutMs: number };
  /** The SDK's waiters (the agent's function updates settling before a schedule publishes its versions). */
  waiter: { minDelaySeconds: number; maxDelaySeconds: number; maxWaitSeconds: number };
  /** teardown's looks for anything still tagged (the tagging API lags behind deletes). */
  teardownChecks: { attempts: number; intervalMs: number };
}

/**
 * What the AWS commands share: credentials resolved once (a clear error before any call),
 * one recorder for the whole command (so `--dry-run` lists every region's calls), clients
 * per region. The SDK is loaded only when an AWS command runs, so every other command starts fast.
 */
export async function openAwsSession(dryRun: boolean, deps: AwsCommandDeps) {
  const [{ createAwsClients, destroyAwsClients }, { resolveCredentials }, { PlannedCallRecorder }] =
    await Promise.all([
      import("../../platforms/aws/aws-clients.js"),
      import("../../platforms/aws/credentials.js"),
      import("../../platforms/aws/planned-calls.js"),
    ]);
  const credentials = deps.credentials ?? (await resolveCredentials(deps.profile));
  const recorder = new PlannedCallRecorder(dryRun);
  const transport = deps.requestHandler ? { requestHandler: deps.requestHandler } : {};
  return {
    recorder,
    clientsFor(region: string): AwsClients {
      return createAwsClients({
        region,
        credentials,
        recorder,
        ...(deps.profile ? { profile: deps.profile } : {}),
        ...transport,
      });
    },
    release(clients: AwsClients): void {
      destroyAwsClients(clients);
    },
    /** The scheduler and Step Functions clients beside `clients`: same region, credentials, transport. */
    async schedulingFor(clients: AwsClients): Promise<ScheduleClients> {
      const { withScheduleClients } = await import("../../scheduled-studies/schedule-clients.js");
      return withScheduleClients(clients, { credentials: clients.lambda.config.credentials, ...transport });
    },
    /** The `--dry-run` listing. */
    printPlan(): void {
      if (!dryRun) return;
      console.log("Dry run: the calls made (reads) and those a real run would make (would call):");
      for (const line of recorder.describe()) console.log(`  ${line}`);
    },
  };
}
