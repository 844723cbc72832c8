import { GetObjectCommand, PutObjectCommand, paginateListObjectsV2, type S3Client } from "@aws-sdk/client-s3";
import type { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import type { AgentEventInput } from "../agent/event.js";
import { errorName } from "../platforms/aws/backoff.js";
import { classifyFunctionError, outcomeFromInvokeResult } from "../platforms/aws/invocation-outcome.js";
import { ensureTestObject } from "../platforms/aws/test-object.js";
import type { InvocationOutcome } from "../results/invocation-outcome.js";
import type { RunManifest } from "../results/manifest.js";
import { buildRecord } from "../results/result-record.js";
import { runDirectoryName } from "../results/run-directory.js";
import type { ScheduleExecutionPlan } from "./execution-plan.js";
import { withRunQuota } from "./quota-in-force.js";
import { recordKey, runKeys, scheduleKeys } from "./schedule-naming.js";
import type { ScheduledTask } from "./scheduled-tasks.js";

/**
 * The recorder: the small function the state machine calls around the agent's invocations.
 * It builds each ResultRecord with the runner's own buildRecord (from the same InvocationOutcome
 * `run` would have), so a scheduled run's records have exactly the shape of `run`'s, and writes
 * the run's manifest at the start and at the end. It never measures anything, and the agent
 * (the measured environment) never writes to S3 beyond its probes.
 */
export interface RecorderDeps {
  s3: S3Client;
  region: string;
  /** Reads the bandwidth quota in force at each run's start (absent: the create-time facts stay). */
  quotas?: ServiceQuotasClient;
  /** Invokes the agent's $LATEST (for s3-put of a missing test object). */
  invokeLatest: (event: AgentEventInput) => Promise<InvocationOutcome>;
  now?: () => Date;
}

export type RecorderEvent =
  | { step: "begin"; bucket: string; schedule: string; executionName: string; startTime: string }
  | { step: "ensure-object"; bucket: string; bytes: number }
  | { step: "record"; state: RecordStepState }
  | { step: "finish"; bucket: string; schedule: string; runId: string };

/** The Map iteration's state when it reaches Record (see state-machine-definition.ts). */
export interface RecordStepState {
  runId: string;
  bucket: string;
  task: ScheduledTask;
  startedAt: string;
  /** The lambda:invoke result (ResultSelector'ed) when the invocation returned. */
  invocation?: { statusCode?: number; payload?: unknown };
  /** Error and Cause when Invoke failed after its retries. */
  failure?: { Error?: string; Cause?: string };
  finished: { at: string };
}

export async function handleRecorderEvent(deps: RecorderDeps, event: RecorderEvent): Promise<unknown> {
  switch (event.step) {
    case "begin":
      return beginRun(deps, event);
    case "ensure-object":
      return {
        key: await ensureTestObject(
          deps.s3,
          { bucket: event.bucket, region: deps.region },
          event.bytes,
          deps.invokeLatest,
        ),
      };
    case "record":
      return recordTask(deps, event.state);
    case "finish":
      return finishRun(deps, event);
    default:
      throw new Error(`recorder: unknown step ${JSON.stringify((event as { step?: unknown }).step)}`);
  }
}

export async function readJsonObject<T>(s3: S3Client, bucket: string, key: string): Promise<T | null> {
  try {
    const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return JSON.parse(
      await (response.Body as { transformToString(): Promise<string> }).transformToString(),
    ) as T;
  } catch (error) {
    if (errorName(error) === "NoSuchKey" || errorName(error) === "NotFound") return null;
    throw error;
  }
}

async function putJson(s3: S3Client, bucket: string, key: string, text: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: text, ContentType: "application/json" }),
  );
}

async function readPlan(s3: S3Client, bucket: string, schedule: string): Promise<ScheduleExecutionPlan> {
  const key = scheduleKeys(schedule).execution;
  const plan = await readJsonObject<ScheduleExecutionPlan>(s3, bucket, key);
  if (!plan)
    throw new Error(`s3://${bucket}/${key} is missing: run \`lambda-netbench schedule create\` again`);
  return plan;
}

function hostnameOf(executionName: string): string {
  return `step-functions:${executionName}`;
}

/**
 * Names the run as `run` names its directory (start time and plan name; -2, -3... when two
 * executions start in the same second) and writes its manifest with completedAt null. A retried
 * begin of the same execution finds its own manifest and keeps it.
 */
export async function beginRun(
  deps: RecorderDeps,
  input: Extract<RecorderEvent, { step: "begin" }>,
): Promise<{ runId: string; testObjectBytes: number[]; warmups: ScheduledTask[]; tasks: ScheduledTask[] }> {
  const plan = await readPlan(deps.s3, input.bucket, input.schedule);
  const started = new Date(input.startTime);
  if (Number.isNaN(started.getTime())) throw new Error(`begin: startTime ${input.startTime} is not a time`);
  const base = runDirectoryName(plan.manifest.plan.name, started);
  const hostname = hostnameOf(input.executionName);
  let runId = base;
  for (let attempt = 1; ; attempt += 1) {
    runId = attempt === 1 ? base : `${base}-${attempt}`;
    const existing = await readJsonObject<RunManifest>(deps.s3, input.bucket, runKeys(runId).manifest);
    if (existing === null) break;
    if (existing.hostname === hostname) break;
    if (attempt > 100) throw new Error(`begin: no free run id for ${base}`);
  }
  const platforms = deps.quotas
    ? await withRunQuota(plan.manifest.platforms, deps.quotas, (deps.now ?? (() => new Date()))())
    : plan.manifest.platforms;
  const manifest: RunManifest = {
    ...plan.manifest,
    platforms,
    runId,
    createdAt: started.toISOString(),
    hostname,
    nodeVersion: process.version,
    completedAt: null,
  };
  await putJson(deps.s3, input.bucket, runKeys(runId).manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  return {
    runId,
    testObjectBytes: plan.testObjectBytes,
    warmups: plan.warmups,
    tasks: plan.mode === "inline" ? (plan.tasks ?? []) : [],
  };
}

/** The InvocationOutcome `run` would have had, from what the state machine saw. */
export function outcomeFromState(state: RecordStepState): InvocationOutcome {
  const startedAt = state.startedAt;
  const task = state.task;
  if (task.event === null)
    return {
      response: null,
      failure: task.skip ?? { kind: "platform", message: "no event and no reason" },
      startedAt,
      durationSeconds: 0,
    };
  const durationSeconds = Math.max(0, (Date.parse(state.finished.at) - Date.parse(startedAt)) / 1000);
  if (state.invocation) {
    const payload = Buffer.from(JSON.stringify(state.invocation.payload ?? null));
    return outcomeFromInvokeResult(
      { statusCode: state.invocation.statusCode, functionError: undefined, payload },
      startedAt,
      durationSeconds,
    );
  }
  return { ...outcomeFromStatesError(state.failure ?? {}), startedAt, durationSeconds };
}

/**
 * A failed lambda:invoke task as Step Functions reports it: Lambda's own errors are named
 * `Lambda.<Exception>`; a function error carries the function's errorType as Error and its
 * error payload (errorType, errorMessage) as Cause; the task's timeout is States.Timeout.
 */
export function outcomeFromStatesError(failure: {
  Error?: string;
  Cause?: string;
}): Pick<InvocationOutcome, "response" | "failure"> {
  const error = failure.Error ?? "States.TaskFailed";
  const cause = failure.Cause ?? "";
  if (/^Lambda\.(TooManyRequestsException|EC2ThrottledException)$/.test(error))
    return { response: null, failure: { kind: "throttled", message: `${error}: ${cause}` } };
  if (error === "States.Timeout")
    return {
      response: null,
      failure: { kind: "timeout", message: `${error}: the invocation outlasted the task's timeout` },
    };
  if (error.startsWith("Lambda.") || error.startsWith("States."))
    return { response: null, failure: { kind: "platform", message: `${error}: ${cause}` } };
  let payloadText = cause;
  try {
    const parsed = JSON.parse(cause) as { errorType?: unknown };
    if (typeof parsed.errorType !== "string")
      payloadText = JSON.stringify({ errorType: error, errorMessage: cause });
  } catch {
    payloadText = JSON.stringify({ errorType: error, errorMessage: cause });
  }
  return { response: null, failure: classifyFunctionError(payloadText) };
}

export async function recordTask(deps: RecorderDeps, state: RecordStepState): Promise<{ key: string }> {
  const record = buildRecord({
    runId: state.runId,
    cell: state.task.cell,
    repetition: state.task.repetition,
    outcome: outcomeFromState(state),
  });
  const key = recordKey(state.runId, record.cellId, record.repetition);
  await putJson(deps.s3, state.bucket, key, `${JSON.stringify(record)}\n`);
  return { key };
}

export async function listKeys(s3: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket, Prefix: prefix }))
    for (const entry of page.Contents ?? []) if (entry.Key) keys.push(entry.Key);
  return keys;
}

/**
 * Rewrites the manifest at the end: completedAt is set when every planned invocation (warm-ups
 * included) has its record, as `run` sets it; otherwise it stays null and the run shows as
 * incomplete in `report`.
 */
export async function finishRun(
  deps: RecorderDeps,
  input: Extract<RecorderEvent, { step: "finish" }>,
): Promise<{ complete: boolean; missing: number }> {
  const plan = await readPlan(deps.s3, input.bucket, input.schedule);
  const tasks =
    plan.tasks ??
    (await readJsonObject<ScheduledTask[]>(deps.s3, input.bucket, scheduleKeys(input.schedule).tasks)) ??
    [];
  const expected = new Set(
    [...plan.warmups, ...tasks].map((task) => recordKey(input.runId, task.cell.id, task.repetition)),
  );
  const present = new Set(await listKeys(deps.s3, input.bucket, runKeys(input.runId).records));
  const missing = [...expected].filter((key) => !present.has(key)).length;
  const manifestKey = runKeys(input.runId).manifest;
  const manifest = await readJsonObject<RunManifest>(deps.s3, input.bucket, manifestKey);
  if (!manifest) throw new Error(`finish: s3://${input.bucket}/${manifestKey} is missing`);
  if (missing === 0 && manifest.completedAt === null) {
    manifest.completedAt = (deps.now ?? (() => new Date()))().toISOString();
    await putJson(deps.s3, input.bucket, manifestKey, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { complete: missing === 0, missing };
}
