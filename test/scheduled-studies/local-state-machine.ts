// biome-ignore-all lint/suspicious/noExplicitAny: drives the untyped ASL document and the package's JSON values
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { AgentEventInput } from "../../src/agent/event.js";
import { expandPlan } from "../../src/plan/expand-plan.js";
import type { Plan } from "../../src/plan/plan-schema.js";
import { targetKey } from "../../src/plan/platforms.js";
import { functionName } from "../../src/platforms/aws/naming.js";
import { plannedProbe } from "../../src/probes/registry.js";
import type { InvocationOutcome } from "../../src/results/invocation-outcome.js";
import type { EnvironmentVariant, Platform } from "../../src/runner/platform.js";
import { buildExecutionPlan, writeExecutionPlan } from "../../src/scheduled-studies/execution-plan.js";
import { handleRecorderEvent, type RecorderDeps } from "../../src/scheduled-studies/recorder.js";
import { scheduleAliasName } from "../../src/scheduled-studies/schedule-naming.js";
import { scheduleDefinition } from "../../src/scheduled-studies/schedule-template.js";
import { buildScheduledWork } from "../../src/scheduled-studies/scheduled-tasks.js";
import type { MapMode } from "../../src/scheduled-studies/state-machine-definition.js";
import { S3RVER_CREDENTIALS } from "../helpers/s3rver-instance.js";

/**
 * Runs a schedule's real state machine definition with aws-local-stepfunctions 3.0.0:
 * - the package runs Pass, Choice, Map (inline), Task, Retry/Catch, ItemSelector, ResultSelector,
 *   the context object ($$.Execution, $$.Map.Item) as Step Functions does;
 * - its Task states call Lambda by the Resource ARN only, so every Task is bound with the
 *   package's override hook: Invoke -> the platform's invoke() (the lab's environments),
 *   the recorder steps -> the recorder's real code writing to s3rver (the region's bucket),
 *   EnsureTestObject -> the platform's ensureTestObject(); each returns what the lambda:invoke
 *   integration returns ({StatusCode, Payload}) or throws what it throws (Error = the error name);
 * - it has no $$.State.EnteredTime: the context gives it, read at the moment the state runs;
 * - it has no Distributed Map (ItemReader, child executions): the ItemReader is emulated by a Task
 *   with the ItemReader's own Resource and Parameters (resolved by the package from the state)
 *   whose handler GETs the object from s3rver and parses it as JSON, as the ItemReader does with
 *   InputType JSON; the Map then iterates it inline (ProcessorConfig is ignored);
 * - it needs Node 22's Promise.withResolvers: installed here on Node 20.
 */
const promiseStatics = Promise as unknown as { withResolvers?: () => unknown };
promiseStatics.withResolvers ??= () => {
  let resolve!: (value: unknown) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

export function s3rverClient(endpoint: string): S3Client {
  return new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
  });
}

export interface LocalExecutionOptions {
  platform: Platform;
  plan: Plan;
  mode: MapMode;
  name: string;
  s3: S3Client;
  bucket: string;
  executionName: string;
  /** Replaces the platform's invoke (e.g. to throttle). */
  invoke?: (variant: EnvironmentVariant, event: AgentEventInput) => Promise<InvocationOutcome>;
}

export function variantOf(qualifiedName: string): EnvironmentVariant {
  const match = /-m(\d+)-(arm64|x86-64)$/.exec(qualifiedName);
  if (!match) throw new Error(`not a schedule alias: ${qualifiedName}`);
  return { memoryMb: Number(match[1]), arch: match[2] === "arm64" ? "arm64" : "x86_64" };
}

/** What the lambda:invoke integration throws for a failed invocation (Error name, Cause text). */
function integrationError(failure: NonNullable<InvocationOutcome["failure"]>): Error {
  const names: Record<string, string> = {
    throttled: "Lambda.TooManyRequestsException",
    platform: "Lambda.ServiceException",
    timeout: "Sandbox.Timedout",
    "out-of-memory": "Runtime.OutOfMemory",
    "function-error": "Error",
  };
  const name = names[failure.kind] ?? "Lambda.Unknown";
  const cause = name.startsWith("Lambda.")
    ? failure.message
    : JSON.stringify({ errorType: name, errorMessage: failure.message, trace: [] });
  return Object.assign(new Error(cause), { name });
}

export async function executeScheduleLocally(options: LocalExecutionOptions) {
  const { StateMachine } = await import("aws-local-stepfunctions");
  const { platform, plan, name } = options;
  const cells = expandPlan(plan);
  const variants = [
    ...new Map(
      cells.map((c) => [`${c.memoryMb}/${c.arch}`, { memoryMb: c.memoryMb, arch: c.arch }]),
    ).values(),
  ];
  await platform.prepare(variants);
  const objectKeys = new Map<number, string>();
  for (const cell of cells) {
    const bytes = plannedProbe(cell.probe).testObjectBytes(cell.probe);
    if (bytes !== null && !objectKeys.has(bytes))
      objectKeys.set(bytes, await platform.ensureTestObject(bytes));
  }
  const work = buildScheduledWork({
    cells,
    warmup: plan.warmup,
    endpoints: platform.endpoints(),
    objectKeys,
    eventRunId: `schedule-${name}`,
    functionNameFor: (v) => `${functionName}:${scheduleAliasName(name, v.memoryMb, v.arch)}`,
  });
  const target = plan.targets[0];
  if (!target) throw new Error("no target");
  const executionPlan = buildExecutionPlan({
    name,
    expression: "rate(1 day)",
    mode: options.mode,
    plan,
    source: { preset: null, configPath: "plan.json", regions: null },
    cells,
    work,
    platforms: { [targetKey(target)]: await platform.facts() },
  });
  await writeExecutionPlan(options.s3, options.bucket, executionPlan, work.tasks);

  const definition = structuredClone(
    scheduleDefinition({
      name,
      expression: "rate(1 day)",
      timezone: "UTC",
      variants,
      maxConcurrency: plan.parallelism ?? 1,
      mode: options.mode,
      agentTimeoutSeconds: 900,
    }),
  ) as any;
  const readItems: string[] = [];
  if (options.mode === "distributed") {
    const measure = definition.States.Measure;
    definition.States.ItemReaderEmulation = {
      Type: "Task",
      Resource: measure.ItemReader.Resource,
      Parameters: measure.ItemReader.Parameters,
      ResultPath: "$.items",
      Next: "Measure",
    };
    definition.States.WarmUp.Next = "ItemReaderEmulation";
    delete measure.ItemReader;
    delete measure.ToleratedFailurePercentage;
    measure.ItemsPath = "$.items";
  }

  const deps: RecorderDeps = {
    s3: options.s3,
    region: "us-east-1",
    invokeLatest: async () => {
      throw new Error("the local binding makes test objects through the platform");
    },
  };
  const recorder = async (input: any) => ({
    StatusCode: 200,
    Payload: (await handleRecorderEvent(deps, input.Payload)) as any,
  });
  const invoke = async (input: any) => {
    const variant = variantOf(input.FunctionName);
    const outcome = options.invoke
      ? await options.invoke(variant, input.Payload)
      : await platform.invoke(variant, input.Payload);
    if (outcome.failure) throw integrationError(outcome.failure);
    return { StatusCode: 200, Payload: outcome.response as any };
  };
  const machine = new StateMachine(definition, { validationOptions: { checkArn: false } });
  const execution = machine.run(
    { bucket: options.bucket, schedule: name },
    {
      overrides: {
        taskResourceLocalHandlers: {
          Begin: recorder,
          EnsureTestObject: async (input: any) => ({
            StatusCode: 200,
            Payload: { key: await platform.ensureTestObject(input.Payload.bytes) },
          }),
          WarmUpInvoke: invoke,
          WarmUpRecord: recorder,
          MeasureInvoke: invoke,
          MeasureRecord: recorder,
          Finish: recorder,
          ItemReaderEmulation: async (input: any) => {
            readItems.push(`${input.Bucket}/${input.Key}`);
            const response = await options.s3.send(
              new GetObjectCommand({ Bucket: input.Bucket, Key: input.Key }),
            );
            return JSON.parse(await (response.Body as any).transformToString());
          },
        },
        retryIntervalOverrides: { WarmUpInvoke: 5, MeasureInvoke: 5 },
      },
      context: {
        Execution: { Name: options.executionName },
        State: {
          get EnteredTime() {
            return new Date().toISOString();
          },
        },
      },
    },
  );
  const output = (await execution.result) as any;
  return { output, readItems, work };
}
