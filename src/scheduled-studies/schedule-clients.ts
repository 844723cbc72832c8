import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { SFNClient } from "@aws-sdk/client-sfn";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, RequestHandler } from "@smithy/types";
import type { AwsClients } from "../platforms/aws/aws-clients.js";

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
    maxAttempts?: number;
  },
): ScheduleClients {
  const common = {
    region: clients.region,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
  };
  const sfn = new SFNClient(common);
  const scheduler = new SchedulerClient(common);
  clients.recorder.attach(sfn, clients.region);
  clients.recorder.attach(scheduler, clients.region);
  return { ...clients, sfn, scheduler };
}

export function destroyScheduleClients(clients: ScheduleClients): void {
  clients.sfn.destroy();
  clients.scheduler.destroy();
}
