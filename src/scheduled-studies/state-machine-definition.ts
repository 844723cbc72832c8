/**
 * The Amazon States Language definition of a scheduled study, as plain JSON (no Fn::Sub, no
 * substitutions): everything that varies per region comes in the execution input
 * (`{"bucket": ..., "schedule": ...}`, set by the EventBridge schedule), so the definition can be
 * printed, validated and run locally as it is deployed.
 *
 * Begin (recorder: run id, manifest) -> EnsureTestObjects -> WarmUp (Map) -> Measure (Map) -> Finish
 * (recorder: manifest with completedAt) -> Complete?; each Map iteration is
 * Stamp -> Dispatch -> Invoke (agent alias, retried on throttling) -> Received -> Record (recorder).
 */
export type MapMode = "inline" | "distributed";

export interface DefinitionOptions {
  /** Name of the schedule's recorder function. */
  recorderFunctionName: string;
  /** Invocations at once: the plan's parallelism. */
  maxConcurrency: number;
  mode: MapMode;
  /** The S3 key of the task list (JSON array) the Distributed Map's ItemReader reads. */
  tasksKey: string;
  /** Longest an agent invocation may take (function timeout plus a margin), seconds. */
  invokeTimeoutSeconds: number;
}

export type AslState = Record<string, unknown>;
export interface AslDefinition {
  Comment: string;
  StartAt: string;
  TimeoutSeconds: number;
  States: Record<string, AslState>;
}

const lambdaInvoke = "arn:aws:states:::lambda:invoke";

/**
 * Lambda's transient errors as the lambda:invoke integration names them. Throttling
 * (TooManyRequests) is what a study meets when parallelism outruns the account's concurrency;
 * retried with exponential backoff and full jitter, so the retries of many iterations spread.
 */
export const lambdaTransientErrors = [
  "Lambda.TooManyRequestsException",
  "Lambda.ServiceException",
  "Lambda.AWSLambdaException",
  "Lambda.SdkClientException",
  "Lambda.EC2ThrottledException",
];

const throttlingRetry = {
  ErrorEquals: lambdaTransientErrors,
  IntervalSeconds: 2,
  MaxAttempts: 8,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: "FULL",
};

/** The recorder only writes to S3: its own errors (a failed write) are retried too. */
const recorderRetry = [
  throttlingRetry,
  {
    ErrorEquals: ["States.TaskFailed"],
    IntervalSeconds: 2,
    MaxAttempts: 3,
    BackoffRate: 2,
    JitterStrategy: "FULL",
  },
];

function recorderTask(
  options: DefinitionOptions,
  payload: Record<string, unknown>,
  rest: AslState,
): AslState {
  return {
    Type: "Task",
    Resource: lambdaInvoke,
    Parameters: { FunctionName: options.recorderFunctionName, Payload: payload },
    TimeoutSeconds: 900,
    Retry: recorderRetry,
    ...rest,
  };
}

/** What each Map iteration does with one ScheduledTask (state input: runId, bucket, task). */
export function cellProcessor(
  options: DefinitionOptions,
  prefix: string,
): { StartAt: string; States: Record<string, AslState> } {
  // state names are unique across the whole machine, Map processors included
  const name = (state: string) => `${prefix}${state}`;
  return {
    StartAt: name("Stamp"),
    States: {
      [name("Stamp")]: {
        Type: "Pass",
        Comment: "when the invocation starts, as `run` takes it before Invoke",
        Parameters: {
          "runId.$": "$.runId",
          "bucket.$": "$.bucket",
          "task.$": "$.task",
          "startedAt.$": "$$.State.EnteredTime",
        },
        Next: name("Dispatch"),
      },
      [name("Dispatch")]: {
        Type: "Choice",
        Comment: "a task without an event (no peer for its probe) is recorded, not invoked",
        Choices: [{ Variable: "$.task.event", IsNull: true, Next: name("Received") }],
        Default: name("Invoke"),
      },
      [name("Invoke")]: {
        Type: "Task",
        Resource: lambdaInvoke,
        Parameters: { "FunctionName.$": "$.task.functionName", "Payload.$": "$.task.event" },
        ResultSelector: { "statusCode.$": "$.StatusCode", "payload.$": "$.Payload" },
        ResultPath: "$.invocation",
        TimeoutSeconds: options.invokeTimeoutSeconds,
        Retry: [throttlingRetry],
        Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: name("Received") }],
        Next: name("Received"),
      },
      [name("Received")]: {
        Type: "Pass",
        Comment: "when the invocation ended (or failed for good)",
        Parameters: { "at.$": "$$.State.EnteredTime" },
        ResultPath: "$.finished",
        Next: name("Record"),
      },
      [name("Record")]: recorderTask(
        options,
        { step: "record", "state.$": "$" },
        // the iteration's output is only the record's key: Map results stay small
        { ResultSelector: { "key.$": "$.Payload.key" }, ResultPath: "$", End: true },
      ),
    },
  };
}

function cellMap(options: DefinitionOptions, prefix: string, rest: AslState, distributed: boolean): AslState {
  const processor = cellProcessor(options, prefix);
  return {
    Type: "Map",
    MaxConcurrency: options.maxConcurrency,
    ItemSelector: { "runId.$": "$.run.runId", "bucket.$": "$.bucket", "task.$": "$$.Map.Item.Value" },
    ItemProcessor: {
      ProcessorConfig: distributed ? { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" } : { Mode: "INLINE" },
      ...processor,
    },
    ResultPath: null,
    ...rest,
  };
}

export function buildDefinition(options: DefinitionOptions): AslDefinition {
  if (!(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1))
    throw new Error(
      `maxConcurrency: ${options.maxConcurrency} is not allowed (allowed: a whole number from 1)`,
    );
  const distributed = options.mode === "distributed";
  const toFinish = { Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "Finish" }] };
  return {
    Comment:
      "lambda-netbench scheduled study: invokes the agent once per expanded cell and repetition, one record per invocation under runs/RUN_ID/",
    StartAt: "Begin",
    // a stuck study ends within a day; its manifest then shows it incomplete
    TimeoutSeconds: 86_400,
    States: {
      Begin: recorderTask(
        options,
        {
          step: "begin",
          "bucket.$": "$.bucket",
          "schedule.$": "$.schedule",
          "executionName.$": "$$.Execution.Name",
          "startTime.$": "$$.Execution.StartTime",
        },
        {
          ResultSelector: {
            "runId.$": "$.Payload.runId",
            "testObjectBytes.$": "$.Payload.testObjectBytes",
            "warmups.$": "$.Payload.warmups",
            "tasks.$": "$.Payload.tasks",
          },
          ResultPath: "$.run",
          Next: "EnsureTestObjects",
        },
      ),
      EnsureTestObjects: {
        Type: "Map",
        Comment: "test objects expire after 7 days: made again, inside the region, when missing",
        ItemsPath: "$.run.testObjectBytes",
        MaxConcurrency: 1,
        ItemSelector: { "bucket.$": "$.bucket", "bytes.$": "$$.Map.Item.Value" },
        ItemProcessor: {
          ProcessorConfig: { Mode: "INLINE" },
          StartAt: "EnsureTestObject",
          States: {
            EnsureTestObject: recorderTask(
              options,
              { step: "ensure-object", "bucket.$": "$.bucket", "bytes.$": "$.bytes" },
              {
                ResultSelector: { "key.$": "$.Payload.key" },
                // a failure shows in the s3-get records (the object is missing), as in `run`
                Catch: [{ ErrorEquals: ["States.ALL"], ResultPath: "$.error", Next: "TestObjectMissing" }],
                End: true,
              },
            ),
            TestObjectMissing: { Type: "Pass", End: true },
          },
        },
        ResultPath: null,
        Next: "WarmUp",
      },
      WarmUp: cellMap(
        options,
        "WarmUp",
        {
          Comment: "one untimed info invocation per environment variant",
          ItemsPath: "$.run.warmups",
          Next: "Measure",
          ...toFinish,
        },
        false,
      ),
      Measure: cellMap(
        options,
        "Measure",
        distributed
          ? {
              Comment: "Distributed Map: child executions read the tasks from S3",
              ItemReader: {
                Resource: "arn:aws:states:::s3:getObject",
                ReaderConfig: { InputType: "JSON" },
                Parameters: { "Bucket.$": "$.bucket", Key: options.tasksKey },
              },
              ToleratedFailurePercentage: 100,
              Next: "Finish",
              ...toFinish,
            }
          : { ItemsPath: "$.run.tasks", Next: "Finish", ...toFinish },
        distributed,
      ),
      Finish: recorderTask(
        options,
        { step: "finish", "bucket.$": "$.bucket", "schedule.$": "$.schedule", "runId.$": "$.run.runId" },
        {
          ResultSelector: { "complete.$": "$.Payload.complete", "missing.$": "$.Payload.missing" },
          ResultPath: "$.finish",
          Next: "Complete",
        },
      ),
      Complete: {
        Type: "Choice",
        Choices: [{ Variable: "$.finish.complete", BooleanEquals: true, Next: "Done" }],
        Default: "Incomplete",
      },
      Done: { Type: "Succeed" },
      Incomplete: {
        Type: "Fail",
        Error: "RecordsMissing",
        Cause: "some planned invocations have no record (see the run's manifest.json: completedAt is null)",
      },
    },
  };
}

/**
 * Inline Map while the task list fits in the state payload and Step Functions' inline limits;
 * Distributed Map beyond. Inline: the tasks travel in the execution's state (256 KiB at most)
 * and at most 40 iterations run at once; the whole run is one execution, whose history must
 * stay under 25,000 events (about 10 per task). Distributed: the tasks are read from S3 by the
 * ItemReader, each iteration is a child execution (up to 10,000 at once), and the parent's
 * history stays small whatever the count; it costs one child execution start per task more.
 */
export const inlineLimits = { taskListBytes: 200_000, maxConcurrency: 40, tasks: 2_000 };

export function chooseMapMode(taskListBytes: number, tasks: number, maxConcurrency: number): MapMode {
  return taskListBytes <= inlineLimits.taskListBytes &&
    tasks <= inlineLimits.tasks &&
    maxConcurrency <= inlineLimits.maxConcurrency
    ? "inline"
    : "distributed";
}
