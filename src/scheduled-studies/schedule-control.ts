import { createHash } from "node:crypto";
import { GetTemplateCommand, UpdateStackCommand } from "@aws-sdk/client-cloudformation";
import { GetFunctionConfigurationCommand } from "@aws-sdk/client-lambda";
import { DeleteObjectsCommand, HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import {
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  paginateListSchedules,
} from "@aws-sdk/client-scheduler";
import { ListExecutionsCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { expandPlan } from "../plan/expand-plan.js";
import { type Plan, targetKey } from "../plan/plan-schema.js";
import { errorName } from "../platforms/aws/backoff.js";
import { deleteAliasAndVersion, listAliases, pointAlias } from "../platforms/aws/function-aliases.js";
import { publishVariants } from "../platforms/aws/function-versions.js";
import { functionName, stackName, tagKey, tagValue, testObjectKey } from "../platforms/aws/naming.js";
import {
  addScheduleStack,
  nestedStackLogicalId,
  removeScheduleStack,
} from "../platforms/aws/nested-stacks.js";
import { describeStack, isNoUpdatesError, waitForStack } from "../platforms/aws/stack-state.js";
import type { CfnTemplate } from "../platforms/aws/stack-template.js";
import type { RunManifest } from "../results/manifest.js";
import type { PlatformFacts } from "../results/platform-facts.js";
import type { EnvironmentVariant } from "../runner/platform.js";
import { buildExecutionPlan, writeExecutionPlan } from "./execution-plan.js";
import { quotaFactsAtCreate } from "./quota-in-force.js";
import { listKeys } from "./recorder.js";
import type { ScheduleClients } from "./schedule-clients.js";
import { scheduleAliasName, scheduleKeys, scheduleResourceName } from "./schedule-naming.js";
import { buildScheduleTemplate, type ScheduleTemplateOptions } from "./schedule-template.js";
import { buildScheduledWork, type ScheduledWork } from "./scheduled-tasks.js";
import { chooseMapMode, type MapMode } from "./state-machine-definition.js";

/**
 * The control-plane side of schedules: create (or update), delete, list, run now. Everything a
 * scheduled run needs is expanded here and written to the region's bucket; the state machine
 * only iterates over it.
 */
export const iperf3SkipMessage =
  "skipped: scheduled runs keep no iperf3 server between runs (the deploy server terminates itself after its TTL); iperf3 cells are recorded, not run (docs/aws.md, Scheduled studies)";

export interface StackPoll {
  pollIntervalMs: number;
  timeoutMs: number;
}

export interface CreateScheduleOptions {
  name: string;
  expression: string;
  timezone: string;
  /** The plan with this region as its only target. */
  plan: Plan;
  source: RunManifest["source"];
  parallelism: number;
  recorder: { zip: Buffer; key: string };
  stackPoll?: StackPoll;
  waiter?: { minDelaySeconds: number; maxDelaySeconds: number; maxWaitSeconds: number };
  log?: (line: string) => void;
}

export interface CreateScheduleResult {
  action: "created" | "updated" | "unchanged";
  name: string;
  stateMachineName: string;
  bucket: string;
  mode: MapMode;
  warmups: number;
  tasks: number;
  skipped: number;
  /** Standard-workflow state transitions of one run without retries (Step Functions bills these). */
  stateTransitionsPerRun: number;
  templateKey: string;
}

/**
 * State transitions of one run: 5 per invoked task (Stamp, Dispatch, Invoke, Received, Record),
 * 4 per skipped one, 1 per test object, and the top level's 9 (Begin, EnsureTestObjects, WarmUp,
 * Measure, Finish, Complete, Done, plus the Maps' own). A Distributed Map adds its child executions'
 * start and end per task.
 */
export function stateTransitionsPerRun(work: ScheduledWork, mode: MapMode): number {
  const perTask = (task: { event: unknown }) =>
    (task.event === null ? 4 : 5) + (mode === "distributed" ? 2 : 0);
  return (
    9 +
    work.testObjectBytes.length +
    work.warmups.reduce((sum, task) => sum + perTask(task) - (mode === "distributed" ? 2 : 0), 0) +
    work.tasks.reduce((sum, task) => sum + perTask(task), 0)
  );
}

const defaultPoll: StackPoll = { pollIntervalMs: 10_000, timeoutMs: 30 * 60_000 };

/** Offline parts of a schedule (for --print-template and create alike). */
export function planSchedule(options: {
  name: string;
  expression: string;
  timezone: string;
  plan: Plan;
  parallelism: number;
  agentTimeoutSeconds: number;
  /** Bytes of the JSON task list, when known; estimated from the plan otherwise. */
  taskListBytes?: number;
}): {
  templateOptions: ScheduleTemplateOptions;
  variants: EnvironmentVariant[];
  cells: ReturnType<typeof expandPlan>;
} {
  const cells = expandPlan(options.plan);
  const variants = [
    ...new Map(
      cells.map((cell) => [`${cell.memoryMb}/${cell.arch}`, { memoryMb: cell.memoryMb, arch: cell.arch }]),
    ).values(),
  ];
  const taskCount = cells.reduce((sum, cell) => sum + cell.repetitions, 0);
  // about 1.5 KB per task (the cell and its event) when not measured
  const taskListBytes = options.taskListBytes ?? taskCount * 1_500;
  return {
    cells,
    variants,
    templateOptions: {
      name: options.name,
      expression: options.expression,
      timezone: options.timezone,
      variants,
      maxConcurrency: options.parallelism,
      mode: chooseMapMode(taskListBytes, taskCount, options.parallelism),
      agentTimeoutSeconds: options.agentTimeoutSeconds,
    },
  };
}

export async function createSchedule(
  clients: ScheduleClients,
  options: CreateScheduleOptions,
): Promise<CreateScheduleResult> {
  const log = options.log ?? (() => {});
  const region = clients.region;
  const stack = await describeStack(clients.cloudFormation);
  const outputs = stack?.outputs ?? {};
  if (!stack || !outputs.FunctionName || !outputs.BucketName || !outputs.AgentCodeKey)
    throw new Error(
      `no usable ${stackName} stack in ${region}${stack ? ` (status ${stack.status})` : ""}: run \`lambda-netbench deploy --region ${region}\` first`,
    );
  if (stack.status.endsWith("_IN_PROGRESS"))
    throw new Error(`stack ${stackName} is ${stack.status}: wait until it finishes`);
  const bucket = outputs.BucketName;
  const name = options.name;

  const configuration = await clients.lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: functionName }),
  );
  const agentTimeoutSeconds = configuration.Timeout ?? 900;
  const { cells, variants } = planSchedule({ ...options, agentTimeoutSeconds });

  // the schedule's own alias per variant, on the version `run` would publish
  log(`publishing ${variants.length} version(s) of ${functionName} for the schedule's aliases`);
  const published = await publishVariants(clients.lambda, variants, {
    code: { bucket, key: outputs.AgentCodeKey },
    // a dry run holds the changes back: nothing to wait for
    dryRun: clients.recorder.dryRun,
    waiter: options.waiter ?? { minDelaySeconds: 1, maxDelaySeconds: 10, maxWaitSeconds: 300 },
    ...(options.log ? { log: options.log } : {}),
  });
  const aliases: Record<string, string> = {};
  for (const entry of published) {
    const alias = scheduleAliasName(name, entry.variant.memoryMb, entry.variant.arch);
    await pointAlias(clients.lambda, {
      functionName,
      alias,
      version: entry.version,
      description: "lambda-netbench schedule (kept between runs)",
    });
    aliases[alias] = entry.version;
  }

  const work = buildScheduledWork({
    cells,
    warmup: options.plan.warmup,
    endpoints: { s3: { region, bucket, pathStyle: false } },
    objectKeys: new Map(
      cells.flatMap((cell) =>
        cell.probe.kind === "s3-get"
          ? [[cell.probe.objectMib * 1_048_576, testObjectKey(cell.probe.objectMib * 1_048_576)] as const]
          : [],
      ),
    ),
    eventRunId: `schedule-${name}`,
    functionNameFor: (variant) =>
      `${functionName}:${scheduleAliasName(name, variant.memoryMb, variant.arch)}`,
    skipIperf3: iperf3SkipMessage,
  });
  const tasksText = JSON.stringify(work.tasks);
  const { templateOptions } = planSchedule({
    ...options,
    agentTimeoutSeconds,
    taskListBytes: Buffer.byteLength(tasksText),
  });
  const target = options.plan.targets[0];
  if (!target) throw new Error("the plan has no target");
  // each run reads the quota in force again (quota-in-force.ts); this is the create-time value
  const quota = await quotaFactsAtCreate(clients.quotas, region);
  const facts: PlatformFacts = {
    platform: "aws",
    target: region,
    emulated: false,
    unshaped: false,
    quotaBitsPerSecond: quota.quotaBitsPerSecond,
    details: {
      quota: quota.quota,
      functionName,
      bucket,
      agentCodeKey: outputs.AgentCodeKey,
      schedule: {
        name,
        expression: options.expression,
        timezone: options.timezone,
        mode: templateOptions.mode,
      },
      aliases,
      iperf3Server: null,
    },
  };
  const executionPlan = buildExecutionPlan({
    name,
    expression: options.expression,
    mode: templateOptions.mode,
    plan: options.plan,
    source: options.source,
    cells,
    work,
    platforms: { [targetKey(target)]: facts },
  });

  const keys = scheduleKeys(name);
  // a dry run records the writes below instead of sending them: say so
  const doing = (now: string, wouldBe: string) => (clients.recorder.dryRun ? wouldBe : now);
  await writeExecutionPlan(clients.s3, bucket, executionPlan, work.tasks);
  if (!(await exists(clients, bucket, options.recorder.key))) {
    log(
      `${doing("uploading", "would upload")} the recorder (${options.recorder.zip.length} bytes) to s3://${bucket}/${options.recorder.key}`,
    );
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: options.recorder.key,
        Body: options.recorder.zip,
        ContentType: "application/zip",
      }),
    );
  }
  const templateText = JSON.stringify(buildScheduleTemplate(templateOptions));
  const templateKey = `${keys.prefix}template-${createHash("sha256").update(templateText).digest("hex").slice(0, 16)}.json`;
  await putObject(clients, bucket, templateKey, templateText);

  const parent = await currentTemplate(clients);
  const existed = Boolean(parent.Resources[nestedStackLogicalId(name)]);
  const updated = addScheduleStack(parent, { name, templateKey, recorderCodeKey: options.recorder.key });
  log(
    `${doing(existed ? "updating" : "adding", existed ? "would update" : "would add")} the nested stack of schedule ${name} in ${stackName}`,
  );
  const changed = await updateParent(clients, updated, options.stackPoll ?? defaultPoll);
  return {
    action: !changed ? "unchanged" : existed ? "updated" : "created",
    name,
    stateMachineName: scheduleResourceName(name),
    bucket,
    mode: templateOptions.mode,
    warmups: work.warmups.length,
    tasks: work.tasks.length,
    skipped: work.tasks.filter((task) => task.event === null).length,
    stateTransitionsPerRun: stateTransitionsPerRun(work, templateOptions.mode),
    templateKey,
  };
}

async function putObject(clients: ScheduleClients, bucket: string, key: string, text: string): Promise<void> {
  await clients.s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: text, ContentType: "application/json" }),
  );
}

async function exists(clients: ScheduleClients, bucket: string, key: string): Promise<boolean> {
  try {
    await clients.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (["NotFound", "NoSuchKey"].includes(errorName(error))) return false;
    throw error;
  }
}

/** The region stack's template as deployed (the schedule adds to it, never rebuilds it). */
async function currentTemplate(clients: ScheduleClients): Promise<CfnTemplate> {
  const response = await clients.cloudFormation.send(
    new GetTemplateCommand({ StackName: stackName, TemplateStage: "Original" }),
  );
  if (!response.TemplateBody) throw new Error(`GetTemplate of ${stackName} returned no template`);
  return JSON.parse(response.TemplateBody) as CfnTemplate;
}

/** UpdateStack with every parameter kept; false when CloudFormation finds nothing to change. */
async function updateParent(
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
        Tags: [{ Key: tagKey, Value: tagValue }],
      }),
    );
  } catch (error) {
    if (isNoUpdatesError(error)) return false;
    throw error;
  }
  if (!clients.recorder.dryRun) await waitForStack(clients.cloudFormation, ["UPDATE_COMPLETE"], poll);
  return true;
}

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
    for (let start = 0; start < keys.length; start += 1_000) {
      const chunk = keys.slice(start, start + 1_000);
      await clients.s3.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      objects += chunk.length;
    }
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

export async function listSchedules(clients: ScheduleClients): Promise<ScheduleSummary[]> {
  const prefix = `${stackName}-`;
  const names: string[] = [];
  for await (const page of paginateListSchedules({ client: clients.scheduler }, { NamePrefix: prefix }))
    for (const entry of page.Schedules ?? []) if (entry.Name) names.push(entry.Name);
  const summaries: ScheduleSummary[] = [];
  for (const resourceName of names.sort()) {
    const schedule = await clients.scheduler.send(new GetScheduleCommand({ Name: resourceName }));
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

/** Starts one execution now, with the input the schedule gives it. */
export async function runScheduleNow(
  clients: ScheduleClients,
  name: string,
  now: Date = new Date(),
): Promise<{ executionArn: string; startedAt: string }> {
  let schedule: GetScheduleCommandOutput;
  try {
    schedule = await clients.scheduler.send(new GetScheduleCommand({ Name: scheduleResourceName(name) }));
  } catch (error) {
    if (errorName(error) === "ResourceNotFoundException")
      throw new Error(
        `no schedule named ${name} in ${clients.region} (see \`lambda-netbench schedule list\`)`,
      );
    throw error;
  }
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
