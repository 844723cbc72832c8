import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { SFNClient } from "@aws-sdk/client-sfn";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, RequestHandler } from "@smithy/types";
import type { AwsClients } from "../platforms/aws/aws-clients.js";
import { attachCallRetries } from "../platforms/aws/call-retries.js";
import { awsRequestHandler } from "../platforms/aws/http-transport.js";

/**
 * The two clients only schedules need, built like the others (same region, credentials,
 * transport and call recorder) so the shared AwsClients list stays as it is.
 */
export interface ScheduleClients extends AwsClients {
  sfn: SFNClient;
  scheduler: SchedulerClient;
}

export function withScheduleClients(
  clients: AwsClients,
  options: {
    credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
    // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
    requestHandler?: RequestHandler<any, any>;
  },
): ScheduleClients {
  // through the environment's proxy as the other clients (http-transport.ts)
  const requestHandler = options.requestHandler ?? awsRequestHandler();
  const common = {
    region: clients.region,
    credentials: options.credentials,
    ...(clients.lambda.config.profile ? { profile: clients.lambda.config.profile } : {}),
    maxAttempts: 1,
    ...(requestHandler ? { requestHandler } : {}),
  };
  const sfn = new SFNClient(common);
  const scheduler = new SchedulerClient(common);
  clients.recorder.attach(sfn, clients.region);
  clients.recorder.attach(scheduler, clients.region);
  attachCallRetries(sfn, clients.retries);
  attachCallRetries(scheduler, clients.retries);
  return { ...clients, sfn, scheduler };
}

export function destroyScheduleClients(clients: ScheduleClients): void {
  clients.sfn.destroy();
  clients.scheduler.destroy();
}
