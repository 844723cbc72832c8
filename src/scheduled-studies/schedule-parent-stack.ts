import { GetTemplateCommand, UpdateStackCommand } from "@aws-sdk/client-cloudformation";
import { stackName } from "../platforms/aws/naming.js";
import { isNoUpdatesError, waitForStack } from "../platforms/aws/stack-state.js";
import type { CfnTemplate } from "../platforms/aws/stack-template.js";
import type { ScheduleClients } from "./schedule-clients.js";

/**
 * A schedule is a nested stack of the region's stack: create and delete both read the parent's
 * deployed template, add or remove one resource, and update the parent with every parameter kept.
 */
export interface StackPoll {
  pollIntervalMs: number;
  timeoutMs: number;
}

export const defaultPoll: StackPoll = { pollIntervalMs: 10_000, timeoutMs: 30 * 60_000 };

/** The region stack's template as deployed (the schedule adds to it, never rebuilds it). */
export async function currentTemplate(clients: ScheduleClients): Promise<CfnTemplate> {
  const response = await clients.cloudFormation.send(
    new GetTemplateCommand({ StackName: stackName, TemplateStage: "Original" }),
  );
  if (!response.TemplateBody) throw new Error(`GetTemplate of ${stackName} returned no template`);
  return JSON.parse(response.TemplateBody) as CfnTemplate;
}

/** UpdateStack with every parameter kept; false when CloudFormation finds nothing to change. */
export async function updateParent(
  clients: ScheduleClients,
  template: CfnTemplate,
  poll: StackPoll,
): Promise<boolean> {
  try {
    await clients.cloudFormation.send(
      new UpdateStackCommand({
        StackName: stackName,
        TemplateBody: JSON.stringify(template),
        Capabilities: ["CAPABILITY_IAM"],
        Parameters: Object.keys(template.Parameters ?? {}).map((key) => ({
          ParameterKey: key,
          UsePreviousValue: true,
        })),
        // no Tags and no RoleARN: CloudFormation keeps the stack's own (deploy --tags, --role-arn)
      }),
    );
  } catch (error) {
    if (isNoUpdatesError(error)) return false;
    throw error;
  }
  if (!clients.recorder.dryRun) await waitForStack(clients.cloudFormation, ["UPDATE_COMPLETE"], poll);
  return true;
}
