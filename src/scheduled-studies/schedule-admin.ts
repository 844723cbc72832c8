import {
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  paginateListSchedules,
  UpdateScheduleCommand,
} from "@aws-sdk/client-scheduler";
import { ListExecutionsCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { errorName } from "../platforms/aws/backoff.js";
import { deleteObjects } from "../platforms/aws/bucket-emptying.js";
import { deleteAliasAndVersion, listAliases } from "../platforms/aws/function-aliases.js";
import { functionName, stackName } from "../platforms/aws/naming.js";
import { nestedStackLogicalId, removeScheduleStack } from "../platforms/aws/nested-stacks.js";
import { describeStack } from "../platforms/aws/stack-state.js";
import { listKeys } from "./recorder.js";
import type { ScheduleClients } from "./schedule-clients.js";
import { scheduleKeys, scheduleResourceName } from "./schedule-naming.js";
import { currentTemplate, defaultPoll, type StackPoll, updateParent } from "./schedule-parent-stack.js";

/** The schedules already made: delete one, list them, start one now. */
export interface DeleteScheduleResult {
  removedStack: boolean;
  aliases: number;
  objects: number;
}

/**
 * Removes the schedule's nested stack (state machine, schedule, recorder, roles), its aliases
 * and versions, and its plan in the bucket. Its runs (runs/...) stay until `teardown`.
 */
export async function deleteSchedule(
  clients: ScheduleClients,
  name: string,
  options: { stackPoll?: StackPoll; log?: (line: string) => void } = {},
): Promise<DeleteScheduleResult> {
  const log = options.log ?? (() => {});
  const stack = await describeStack(clients.cloudFormation);
  if (!stack) throw new Error(`no ${stackName} stack in ${clients.region}: nothing to delete`);
  const parent = await currentTemplate(clients);
  let removedStack = false;
  if (parent.Resources[nestedStackLogicalId(name)]) {
    log(`removing the nested stack of schedule ${name} from ${stackName}`);
    removedStack = await updateParent(
      clients,
      removeScheduleStack(parent, name),
      options.stackPoll ?? defaultPoll,
    );
  }
  let aliases = 0;
  for (const alias of await listAliases(clients.lambda, functionName)) {
    if (!alias.Name?.startsWith(`s-${name}-m`) || !alias.FunctionVersion) continue;
    // a version another alias still uses (a run in progress, another schedule) stays
    await deleteAliasAndVersion(clients.lambda, functionName, {
      name: alias.Name,
      version: alias.FunctionVersion,
    });
    aliases += 1;
  }
  const bucket = stack.outputs.BucketName;
  let objects = 0;
  if (bucket) {
    const keys = await listKeys(clients.s3, bucket, scheduleKeys(name).prefix);
    objects = await deleteObjects(
      clients.s3,
      bucket,
      keys.map((Key) => ({ Key })),
    );
  }
  if (!removedStack && aliases === 0 && objects === 0)
    throw new Error(`no schedule named ${name} in ${clients.region} (see \`lambda-netbench schedule list\`)`);
  return { removedStack, aliases, objects };
}

export interface ScheduleSummary {
  name: string;
  expression: string;
  timezone: string | null;
  state: string;
  stateMachineArn: string;
  lastExecution: { name: string; status: string; startedAt: string } | null;
}

const schedulePrefix = `${stackName}-`;

/** Our schedules (lambda-netbench-<name>) with their groups, sorted by name. */
async function listOurSchedules(
  clients: ScheduleClients,
): Promise<Array<{ name: string; group: string | undefined }>> {
  const found: Array<{ name: string; group: string | undefined }> = [];
  for await (const page of paginateListSchedules(
    { client: clients.scheduler },
    { NamePrefix: schedulePrefix },
  ))
    for (const entry of page.Schedules ?? [])
      if (entry.Name) found.push({ name: entry.Name, group: entry.GroupName });
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** Our schedules' resource names, sorted (teardown's check that none is left). */
export async function listScheduleNames(clients: ScheduleClients): Promise<string[]> {
  return (await listOurSchedules(clients)).map((entry) => entry.name);
}

/**
 * Disables every schedule of ours, so none starts a run while teardown deletes what it needs.
 * UpdateSchedule replaces the whole definition: everything GetSchedule returned is sent back,
 * with only the state changed. Returns the schedules disabled.
 */
export async function disableSchedules(clients: ScheduleClients): Promise<string[]> {
  const disabled: string[] = [];
  for (const { name, group } of await listOurSchedules(clients)) {
    const schedule = await clients.scheduler.send(new GetScheduleCommand({ Name: name, GroupName: group }));
    if (schedule.State === "DISABLED" || !schedule.Target || !schedule.FlexibleTimeWindow) continue;
    await clients.scheduler.send(
      new UpdateScheduleCommand({
        Name: name,
        GroupName: schedule.GroupName,
        ScheduleExpression: schedule.ScheduleExpression,
        ScheduleExpressionTimezone: schedule.ScheduleExpressionTimezone,
        Description: schedule.Description,
        StartDate: schedule.StartDate,
        EndDate: schedule.EndDate,
        FlexibleTimeWindow: schedule.FlexibleTimeWindow,
        Target: schedule.Target,
        KmsKeyArn: schedule.KmsKeyArn,
        ActionAfterCompletion: schedule.ActionAfterCompletion,
        State: "DISABLED",
      }),
    );
    disabled.push(name);
  }
  return disabled;
}

export async function listSchedules(clients: ScheduleClients): Promise<ScheduleSummary[]> {
  const prefix = schedulePrefix;
  const summaries: ScheduleSummary[] = [];
  for (const { name: resourceName, group } of await listOurSchedules(clients)) {
    const schedule = await clients.scheduler.send(
      new GetScheduleCommand({ Name: resourceName, GroupName: group }),
    );
    const arn = schedule.Target?.Arn ?? "";
    let lastExecution: ScheduleSummary["lastExecution"] = null;
    if (arn) {
      const executions = await clients.sfn.send(
        new ListExecutionsCommand({ stateMachineArn: arn, maxResults: 1 }),
      );
      const last = executions.executions?.[0];
      if (last)
        lastExecution = {
          name: last.name ?? "",
          status: last.status ?? "",
          startedAt: last.startDate?.toISOString() ?? "",
        };
    }
    summaries.push({
      name: resourceName.slice(prefix.length),
      expression: schedule.ScheduleExpression ?? "",
      timezone: schedule.ScheduleExpressionTimezone ?? null,
      state: schedule.State ?? "",
      stateMachineArn: arn,
      lastExecution,
    });
  }
  return summaries;
}

/** The schedule in its own group, or in the default group where schedules made before groups are. */
async function findSchedule(clients: ScheduleClients, name: string): Promise<GetScheduleCommandOutput> {
  const resourceName = scheduleResourceName(name);
  for (const group of [resourceName, "default"]) {
    try {
      return await clients.scheduler.send(new GetScheduleCommand({ Name: resourceName, GroupName: group }));
    } catch (error) {
      if (errorName(error) !== "ResourceNotFoundException") throw error;
    }
  }
  throw new Error(`no schedule named ${name} in ${clients.region} (see \`lambda-netbench schedule list\`)`);
}

/** Starts one execution now, with the input the schedule gives it. */
export async function runScheduleNow(
  clients: ScheduleClients,
  name: string,
  now: Date = new Date(),
): Promise<{ executionArn: string; startedAt: string }> {
  const schedule = await findSchedule(clients, name);
  const arn = schedule.Target?.Arn;
  if (!arn) throw new Error(`schedule ${name} has no target state machine`);
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const started = await clients.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: arn,
      name: `run-now-${stamp}`,
      ...(schedule.Target?.Input ? { input: schedule.Target.Input } : {}),
    }),
  );
  return {
    executionArn: started.executionArn ?? "",
    startedAt: started.startDate?.toISOString() ?? now.toISOString(),
  };
}
