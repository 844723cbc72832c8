// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub placeholders
import type { Architecture } from "../plan/architecture.js";
import { functionName, tagKey, tagValue, testObjectPrefix } from "../platforms/aws/naming.js";
import { bandwidthQuotaCode, bandwidthQuotaServiceCode } from "../platforms/aws/quota.js";
import type { CfnTemplate } from "../platforms/aws/stack-template.js";
import {
  recorderFunctionName,
  runsPrefix,
  scheduleAliasName,
  scheduleKeys,
  scheduleResourceName,
} from "./schedule-naming.js";
import { type AslDefinition, buildDefinition, type MapMode } from "./state-machine-definition.js";

/**
 * The nested stack of one schedule (a resource of the region's stack, see parent-stack-hook.ts):
 * the recorder function, the state machine and the EventBridge Scheduler schedule, each with a
 * role that can do only its own job. The definition is a plain JSON object (Definition, not a
 * Fn::Sub-assembled DefinitionString); the bucket comes in the execution input.
 */
export interface ScheduleTemplateOptions {
  name: string;
  /** `rate(...)` or `cron(...)`, already validated. */
  expression: string;
  /** IANA time zone of a cron expression (default UTC). */
  timezone: string;
  /** Memory sizes and architectures the plan invokes: one alias each. */
  variants: Array<{ memoryMb: number; arch: Architecture }>;
  maxConcurrency: number;
  mode: MapMode;
  /** The agent's timeout, seconds (the Invoke task waits that long plus a margin). */
  agentTimeoutSeconds: number;
}

const tags = [{ Key: tagKey, Value: tagValue }];
const arnPrefix = "arn:${AWS::Partition}";

export function scheduleDefinition(options: ScheduleTemplateOptions): AslDefinition {
  return buildDefinition({
    recorderFunctionName: recorderFunctionName(options.name),
    maxConcurrency: options.maxConcurrency,
    mode: options.mode,
    tasksKey: scheduleKeys(options.name).tasks,
    invokeTimeoutSeconds: options.agentTimeoutSeconds + 60,
  });
}

export function buildScheduleTemplate(options: ScheduleTemplateOptions): CfnTemplate {
  const name = options.name;
  const resourceName = scheduleResourceName(name);
  const recorderName = recorderFunctionName(name);
  const keys = scheduleKeys(name);
  const bucketArn = `${arnPrefix}:s3:::\${BucketName}`;
  const lambdaArn = (qualified: string) =>
    `${arnPrefix}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${qualified}`;
  const stateMachineArn = `${arnPrefix}:states:\${AWS::Region}:\${AWS::AccountId}:stateMachine:${resourceName}`;
  const aliasArns = [
    ...new Map(options.variants.map((v) => [scheduleAliasName(name, v.memoryMb, v.arch), v])).keys(),
  ]
    .sort()
    .map((alias) => ({ "Fn::Sub": lambdaArn(`${functionName}:${alias}`) }));
  const definition = scheduleDefinition(options);
  const sourceAccount = { StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" } } };

  const stateMachineStatements: Record<string, unknown>[] = [
    {
      Sid: "InvokeTheScheduleAliasesOnly",
      Effect: "Allow",
      Action: "lambda:InvokeFunction",
      Resource: aliasArns,
    },
    {
      Sid: "InvokeTheRecorder",
      Effect: "Allow",
      Action: "lambda:InvokeFunction",
      Resource: [{ "Fn::GetAtt": ["RecorderFunction", "Arn"] }, { "Fn::Sub": `\${RecorderFunction.Arn}:*` }],
    },
  ];
  if (options.mode === "distributed")
    stateMachineStatements.push(
      {
        Sid: "ItemReaderReadsTheTaskList",
        Effect: "Allow",
        Action: "s3:GetObject",
        Resource: { "Fn::Sub": `${bucketArn}/${keys.tasks}` },
      },
      {
        Sid: "DistributedMapChildrenOfThisStateMachine",
        Effect: "Allow",
        Action: "states:StartExecution",
        Resource: { "Fn::Sub": stateMachineArn },
      },
      {
        Sid: "DistributedMapChildExecutions",
        Effect: "Allow",
        Action: ["states:DescribeExecution", "states:StopExecution"],
        Resource: {
          "Fn::Sub": `${arnPrefix}:states:\${AWS::Region}:\${AWS::AccountId}:execution:${resourceName}/*`,
        },
      },
    );

  return {
    AWSTemplateFormatVersion: "2010-09-09",
    Description: `lambda-netbench schedule ${name}: ${options.expression} (delete with \`lambda-netbench schedule delete\`)`,
    Parameters: {
      BucketName: {
        Type: "String",
        Description: "the region stack's bucket (agent code, test objects, runs)",
      },
      RecorderCodeKey: { Type: "String", Description: "key of the recorder's zip in the bucket" },
    },
    Resources: {
      RecorderLogGroup: {
        Type: "AWS::Logs::LogGroup",
        Properties: { LogGroupName: `/aws/lambda/${recorderName}`, RetentionInDays: 7, Tags: tags },
      },
      RecorderRole: {
        Type: "AWS::IAM::Role",
        Properties: {
          Description: `lambda-netbench schedule ${name} recorder: its plan, its runs, the test objects, the quota`,
          AssumeRolePolicyDocument: {
            Version: "2012-10-17",
            Statement: [
              { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
            ],
          },
          Policies: [
            {
              PolicyName: "plan-runs-test-objects-logs",
              PolicyDocument: {
                Version: "2012-10-17",
                Statement: [
                  {
                    Sid: "ReadItsPlan",
                    Effect: "Allow",
                    Action: "s3:GetObject",
                    Resource: { "Fn::Sub": `${bucketArn}/${keys.prefix}*` },
                  },
                  {
                    Sid: "WriteRunsOfAnySchedule",
                    Effect: "Allow",
                    Action: ["s3:GetObject", "s3:PutObject"],
                    Resource: { "Fn::Sub": `${bucketArn}/${runsPrefix}*` },
                  },
                  {
                    // also what makes S3 answer 404 (not 403) for a missing run or test object: a
                    // HEAD carries no s3:prefix, so a prefix condition here would make it 403
                    // and the missing test object would never be recreated. The bucket holds
                    // only this tool's objects.
                    Sid: "ListRunsAndTestObjects",
                    Effect: "Allow",
                    Action: "s3:ListBucket",
                    Resource: { "Fn::Sub": bucketArn },
                  },
                  {
                    Sid: "CheckTestObjects",
                    Effect: "Allow",
                    Action: "s3:GetObject",
                    Resource: { "Fn::Sub": `${bucketArn}/${testObjectPrefix}*` },
                  },
                  {
                    Sid: "MakeMissingTestObjectsWithTheAgent",
                    Effect: "Allow",
                    Action: "lambda:InvokeFunction",
                    Resource: [
                      { "Fn::Sub": lambdaArn(functionName) },
                      { "Fn::Sub": lambdaArn(`${functionName}:$LATEST`) },
                    ],
                  },
                  {
                    // each run records the quota in force at its start (quota-in-force.ts)
                    Sid: "ReadTheBandwidthQuota",
                    Effect: "Allow",
                    Action: "servicequotas:GetServiceQuota",
                    Resource: {
                      "Fn::Sub": `${arnPrefix}:servicequotas:\${AWS::Region}:\${AWS::AccountId}:${bandwidthQuotaServiceCode}/${bandwidthQuotaCode}`,
                    },
                  },
                  {
                    Sid: "OwnLogGroup",
                    Effect: "Allow",
                    Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
                    Resource: { "Fn::GetAtt": ["RecorderLogGroup", "Arn"] },
                  },
                ],
              },
            },
          ],
          Tags: tags,
        },
      },
      RecorderFunction: {
        Type: "AWS::Lambda::Function",
        DependsOn: ["RecorderLogGroup"],
        Properties: {
          FunctionName: recorderName,
          Description: `lambda-netbench schedule ${name}: writes run manifests and records (measures nothing)`,
          Runtime: "nodejs22.x",
          Handler: "recorder.handler",
          PackageType: "Zip",
          Architectures: ["arm64"],
          MemorySize: 256,
          // ensure-object waits for the agent's s3-put of a test object
          Timeout: 900,
          Role: { "Fn::GetAtt": ["RecorderRole", "Arn"] },
          Code: { S3Bucket: { Ref: "BucketName" }, S3Key: { Ref: "RecorderCodeKey" } },
          LoggingConfig: { LogGroup: { Ref: "RecorderLogGroup" }, LogFormat: "Text" },
          Tags: tags,
        },
      },
      StateMachineRole: {
        Type: "AWS::IAM::Role",
        Properties: {
          Description: `lambda-netbench schedule ${name} state machine: its aliases and its recorder`,
          AssumeRolePolicyDocument: {
            Version: "2012-10-17",
            Statement: [
              {
                Effect: "Allow",
                Principal: { Service: "states.amazonaws.com" },
                Action: "sts:AssumeRole",
                Condition: sourceAccount,
              },
            ],
          },
          Policies: [
            {
              PolicyName: "invoke-aliases-and-recorder",
              PolicyDocument: { Version: "2012-10-17", Statement: stateMachineStatements },
            },
          ],
          Tags: tags,
        },
      },
      StateMachine: {
        Type: "AWS::StepFunctions::StateMachine",
        Properties: {
          StateMachineName: resourceName,
          StateMachineType: "STANDARD",
          Definition: definition,
          RoleArn: { "Fn::GetAtt": ["StateMachineRole", "Arn"] },
          Tags: tags,
        },
      },
      SchedulerRole: {
        Type: "AWS::IAM::Role",
        Properties: {
          Description: `lambda-netbench schedule ${name}: may only start its own state machine`,
          AssumeRolePolicyDocument: {
            Version: "2012-10-17",
            Statement: [
              {
                Effect: "Allow",
                Principal: { Service: "scheduler.amazonaws.com" },
                Action: "sts:AssumeRole",
                Condition: sourceAccount,
              },
            ],
          },
          Policies: [
            {
              PolicyName: "start-this-state-machine",
              PolicyDocument: {
                Version: "2012-10-17",
                Statement: [
                  {
                    Sid: "StartThisStateMachineOnly",
                    Effect: "Allow",
                    Action: "states:StartExecution",
                    Resource: { Ref: "StateMachine" },
                  },
                ],
              },
            },
          ],
          Tags: tags,
        },
      },
      // a schedule takes no tags itself; its group does, so the schedule is found by its tag
      // (and by teardown's check) through the group
      ScheduleGroup: {
        Type: "AWS::Scheduler::ScheduleGroup",
        Properties: { Name: resourceName, Tags: tags },
      },
      Schedule: {
        Type: "AWS::Scheduler::Schedule",
        Properties: {
          Name: resourceName,
          GroupName: { Ref: "ScheduleGroup" },
          Description: `lambda-netbench study ${name}`,
          ScheduleExpression: options.expression,
          ScheduleExpressionTimezone: options.timezone,
          FlexibleTimeWindow: { Mode: "OFF" },
          State: "ENABLED",
          Target: {
            Arn: { Ref: "StateMachine" },
            RoleArn: { "Fn::GetAtt": ["SchedulerRole", "Arn"] },
            Input: { "Fn::Sub": `{"bucket":"\${BucketName}","schedule":"${name}"}` },
            // a start that fails (throttled) is retried; one that is hours late is dropped
            RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3_600 },
          },
        },
      },
    },
    Outputs: {
      StateMachineArn: { Value: { Ref: "StateMachine" } },
      ScheduleName: { Value: resourceName },
      RecorderFunctionName: { Value: { Ref: "RecorderFunction" } },
    },
  };
}
