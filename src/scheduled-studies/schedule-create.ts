import { createHash } from "node:crypto";
import { GetFunctionConfigurationCommand } from "@aws-sdk/client-lambda";
import { HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import type { Plan } from "../plan/plan-schema.js";
import { targetKey } from "../plan/platforms.js";
import { errorName } from "../platforms/aws/backoff.js";
import { pointAlias } from "../platforms/aws/function-aliases.js";
import { publishVariants } from "../platforms/aws/function-versions.js";
import { functionName, stackName, testObjectKey } from "../platforms/aws/naming.js";
import { addScheduleStack, nestedStackLogicalId } from "../platforms/aws/nested-stacks.js";
import { permissionsBoundaryOutput, withPermissionsBoundary } from "../platforms/aws/organization.js";
import { describeStack } from "../platforms/aws/stack-state.js";
import { testObjectSizes } from "../probes/registry.js";
import type { RunManifest } from "../results/manifest.js";
import type { PlatformFacts } from "../results/platform-facts.js";
import { buildExecutionPlan, writeExecutionPlan } from "./execution-plan.js";
import { quotaFactsAtCreate } from "./quota-in-force.js";
import type { ScheduleClients } from "./schedule-clients.js";
import { scheduleAliasName, scheduleKeys, scheduleResourceName } from "./schedule-naming.js";
import { currentTemplate, defaultPoll, type StackPoll, updateParent } from "./schedule-parent-stack.js";
import {
  iperf3SkipMessage,
  type PlannedSchedule,
  planSchedule,
  stateTransitionsPerRun,
  withMeasuredTaskList,
} from "./schedule-plan.js";
import { buildScheduleTemplate, type ScheduleTemplateOptions } from "./schedule-template.js";
import { buildScheduledWork, type ScheduledWork } from "./scheduled-tasks.js";
import type { MapMode } from "./state-machine-definition.js";

/**
 * `schedule create` (or update): everything a scheduled run needs is expanded here and written
 * to the region's bucket, then the schedule's nested stack is added to the region's stack; the
 * state machine only iterates over what was written.
 */
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

interface RegionStack {
  bucket: string;
  agentCodeKey: string;
  /** deploy --permissions-boundary: the schedule's roles get it too. */
  permissionsBoundaryArn: string | undefined;
}

export async function createSchedule(
  clients: ScheduleClients,
  options: CreateScheduleOptions,
): Promise<CreateScheduleResult> {
  const log = options.log ?? (() => {});
  const stack = await usableRegionStack(clients);
  const configuration = await clients.lambda.send(
    new GetFunctionConfigurationCommand({ FunctionName: functionName }),
  );
  const planned = planSchedule({ ...options, agentTimeoutSeconds: configuration.Timeout ?? 900 });
  const aliases = await publishScheduleAliases(clients, stack, planned, options);
  const work = scheduledWork(clients.region, stack.bucket, options.name, planned, options.plan);
  const templateOptions = withMeasuredTaskList(planned, Buffer.byteLength(JSON.stringify(work.tasks)));
  const quota = await quotaFactsAtCreate(clients.quotas, clients.region);
  const target = options.plan.targets[0];
  if (!target) throw new Error("the plan has no target");
  const executionPlan = buildExecutionPlan({
    name: options.name,
    expression: options.expression,
    mode: templateOptions.mode,
    plan: options.plan,
    source: options.source,
    cells: planned.cells,
    work,
    platforms: {
      [targetKey(target)]: createTimeFacts(clients.region, stack, options, templateOptions, aliases, quota),
    },
  });
  await writeExecutionPlan(clients.s3, stack.bucket, executionPlan, work.tasks);
  const templateKey = await uploadTemplateAndRecorder(clients, stack, templateOptions, options, log);
  const { changed, existed } = await applyNestedStack(clients, options, templateKey, log);
  return {
    action: !changed ? "unchanged" : existed ? "updated" : "created",
    name: options.name,
    stateMachineName: scheduleResourceName(options.name),
    bucket: stack.bucket,
    mode: templateOptions.mode,
    warmups: work.warmups.length,
    tasks: work.tasks.length,
    skipped: work.tasks.filter((task) => task.event === null).length,
    stateTransitionsPerRun: stateTransitionsPerRun(work, templateOptions.mode),
    templateKey,
  };
}

async function usableRegionStack(clients: ScheduleClients): Promise<RegionStack> {
  const region = clients.region;
  const stack = await describeStack(clients.cloudFormation);
  const outputs = stack?.outputs ?? {};
  if (!stack || !outputs.FunctionName || !outputs.BucketName || !outputs.AgentCodeKey)
    throw new Error(
      `no usable ${stackName} stack in ${region}${stack ? ` (status ${stack.status})` : ""}: run \`lambda-netbench deploy --region ${region}\` first`,
    );
  if (stack.status.endsWith("_IN_PROGRESS"))
    throw new Error(`stack ${stackName} is ${stack.status}: wait until it finishes`);
  return {
    bucket: outputs.BucketName,
    agentCodeKey: outputs.AgentCodeKey,
    permissionsBoundaryArn: outputs[permissionsBoundaryOutput],
  };
}

/** The schedule's own alias per variant, on the version `run` would publish: alias -> version. */
async function publishScheduleAliases(
  clients: ScheduleClients,
  stack: RegionStack,
  planned: PlannedSchedule,
  options: CreateScheduleOptions,
): Promise<Record<string, string>> {
  options.log?.(
    `publishing ${planned.variants.length} version(s) of ${functionName} for the schedule's aliases`,
  );
  const published = await publishVariants(clients.lambda, planned.variants, {
    code: { bucket: stack.bucket, key: stack.agentCodeKey },
    // a dry run holds the changes back: nothing to wait for
    dryRun: clients.recorder.dryRun,
    // the schedule's own aliases below; none of the run's left behind
    pointRunAliases: false,
    waiter: options.waiter ?? { minDelaySeconds: 1, maxDelaySeconds: 10, maxWaitSeconds: 300 },
    ...(options.log ? { log: options.log } : {}),
  });
  const aliases: Record<string, string> = {};
  for (const entry of published) {
    const alias = scheduleAliasName(options.name, entry.variant.memoryMb, entry.variant.arch);
    await pointAlias(clients.lambda, {
      functionName,
      alias,
      version: entry.version,
      description: "lambda-netbench schedule (kept between runs)",
    });
    aliases[alias] = entry.version;
  }
  return aliases;
}

function scheduledWork(
  region: string,
  bucket: string,
  name: string,
  planned: PlannedSchedule,
  plan: Plan,
): ScheduledWork {
  const { cells } = planned;
  return buildScheduledWork({
    cells,
    warmup: plan.warmup,
    endpoints: { s3: { region, bucket, pathStyle: false } },
    objectKeys: new Map(
      testObjectSizes(cells.map((cell) => cell.probe)).map((bytes) => [bytes, testObjectKey(bytes)]),
    ),
    eventRunId: `schedule-${name}`,
    functionNameFor: (variant) =>
      `${functionName}:${scheduleAliasName(name, variant.memoryMb, variant.arch)}`,
    skipIperf3: iperf3SkipMessage,
  });
}

/** The platform facts as of create; each run reads the quota in force again (quota-in-force.ts). */
function createTimeFacts(
  region: string,
  stack: RegionStack,
  options: CreateScheduleOptions,
  templateOptions: ScheduleTemplateOptions,
  aliases: Record<string, string>,
  quota: Awaited<ReturnType<typeof quotaFactsAtCreate>>,
): PlatformFacts {
  return {
    platform: "aws",
    target: region,
    emulated: false,
    unshaped: false,
    quotaBitsPerSecond: quota.quotaBitsPerSecond,
    details: {
      quota: quota.quota,
      functionName,
      bucket: stack.bucket,
      agentCodeKey: stack.agentCodeKey,
      schedule: {
        name: options.name,
        expression: options.expression,
        timezone: options.timezone,
        mode: templateOptions.mode,
      },
      aliases,
      iperf3Server: null,
    },
  };
}

/** Uploads the recorder (once per code version) and the nested template; returns the template's key. */
async function uploadTemplateAndRecorder(
  clients: ScheduleClients,
  stack: RegionStack,
  templateOptions: ScheduleTemplateOptions,
  options: CreateScheduleOptions,
  log: (line: string) => void,
): Promise<string> {
  const bucket = stack.bucket;
  if (!(await exists(clients, bucket, options.recorder.key))) {
    log(
      `${doing(clients, "uploading", "would upload")} the recorder (${options.recorder.zip.length} bytes) to s3://${bucket}/${options.recorder.key}`,
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
  const templateText = JSON.stringify(
    withPermissionsBoundary(buildScheduleTemplate(templateOptions), stack.permissionsBoundaryArn),
  );
  const templateKey = `${scheduleKeys(options.name).prefix}template-${createHash("sha256").update(templateText).digest("hex").slice(0, 16)}.json`;
  await clients.s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: templateKey,
      Body: templateText,
      ContentType: "application/json",
    }),
  );
  return templateKey;
}

async function applyNestedStack(
  clients: ScheduleClients,
  options: CreateScheduleOptions,
  templateKey: string,
  log: (line: string) => void,
): Promise<{ changed: boolean; existed: boolean }> {
  const name = options.name;
  const parent = await currentTemplate(clients);
  const existed = Boolean(parent.Resources[nestedStackLogicalId(name)]);
  const updated = addScheduleStack(parent, { name, templateKey, recorderCodeKey: options.recorder.key });
  log(
    `${existed ? doing(clients, "updating", "would update") : doing(clients, "adding", "would add")} the nested stack of schedule ${name} in ${stackName}`,
  );
  const changed = await updateParent(clients, updated, options.stackPoll ?? defaultPoll);
  return { changed, existed };
}

/** A dry run records the writes instead of sending them: its log lines say so. */
function doing(clients: ScheduleClients, now: string, wouldBe: string): string {
  return clients.recorder.dryRun ? wouldBe : now;
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
