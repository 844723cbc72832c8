import { recorderFunctionSuffix, stackName } from "./naming.js";
import { IAM_ROLE_ACTIONS, LAMBDA_FUNCTION_ACTIONS, LOG_GROUP_ACTIONS } from "./resource-type-actions.js";

/**
 * What schedules add to the operator policy (`deploy --print-operator-policy`), beside the
 * region's own needs in operator-policy.ts: the calls `schedule create|list|delete|run-now` and
 * `runs pull` make, and what CloudFormation does with the caller's rights to create, update and
 * delete the nested stack of a schedule and its resources. Kept here so the schedule's code and
 * its permissions change together; operator-policy.ts merges it.
 */
export type ScheduleScope =
  | "scheduleStacks"
  | "stateMachines"
  | "schedules"
  | "scheduleGroups"
  | "recorderFunctions"
  | "recorderLogGroups"
  | "scheduleRoles";

/** Scopes of the region's policy that schedules use too (operator-policy.ts defines them). */
type SharedScope = "stack" | "objects" | "bucket" | "roles" | "any";
type Entry = { actions: string[]; scope: ScheduleScope | SharedScope };

/** Everything a schedule creates is named `lambda-netbench-<schedule>...`. */
const prefix = `${stackName}-`;
const recorderFunctions = `${prefix}*-${recorderFunctionSuffix}`;

export const scheduleScopeResources: Record<ScheduleScope, string | string[]> = {
  // CloudFormation names the nested stack <parent>-<logical id "ScheduleName">-<random>
  scheduleStacks: `arn:aws:cloudformation:*:*:stack/${prefix}Schedule*/*`,
  stateMachines: [`arn:aws:states:*:*:stateMachine:${prefix}*`, `arn:aws:states:*:*:execution:${prefix}*:*`],
  // each schedule in its own group of the same name (schedules made before that: the default group)
  schedules: [
    `arn:aws:scheduler:*:*:schedule/${prefix}*/${prefix}*`,
    `arn:aws:scheduler:*:*:schedule/default/${prefix}*`,
  ],
  scheduleGroups: `arn:aws:scheduler:*:*:schedule-group/${prefix}*`,
  recorderFunctions: [
    `arn:aws:lambda:*:*:function:${recorderFunctions}`,
    `arn:aws:lambda:*:*:function:${recorderFunctions}:*`,
  ],
  recorderLogGroups: [
    `arn:aws:logs:*:*:log-group:/aws/lambda/${recorderFunctions}`,
    `arn:aws:logs:*:*:log-group:/aws/lambda/${recorderFunctions}:*`,
  ],
  // the nested stack's roles: <nested stack name>-<logical id>-<random>
  scheduleRoles: `arn:aws:iam::*:role/${prefix}Schedule*`,
};

/** The services the schedule's roles are passed to (recorder, state machine, schedule). */
export const scheduleRoleServices = [
  "lambda.amazonaws.com",
  "states.amazonaws.com",
  "scheduler.amazonaws.com",
];

export const scheduleCallActions: Record<string, Entry> = {
  // create and delete read the region's template and add or remove the nested stack
  "CloudFormation.GetTemplate": { actions: ["cloudformation:GetTemplate"], scope: "stack" },
  // list
  "Scheduler.ListSchedules": { actions: ["scheduler:ListSchedules"], scope: "any" },
  "Scheduler.GetSchedule": { actions: ["scheduler:GetSchedule"], scope: "schedules" },
  // teardown disables every schedule before it deletes anything; passing its role again is
  // granted with the schedule's resource actions (PassScheduleRoles)
  "Scheduler.UpdateSchedule": { actions: ["scheduler:UpdateSchedule"], scope: "schedules" },
  "SFN.ListExecutions": { actions: ["states:ListExecutions"], scope: "stateMachines" },
  // run-now
  "SFN.StartExecution": { actions: ["states:StartExecution"], scope: "stateMachines" },
  // runs pull (listing runs/ is S3.ListObjectsV2, declared with bucket emptying)
  "S3.GetObject": { actions: ["s3:GetObject"], scope: "objects" },
};

/** CloudFormation create / update / rollback / delete of each resource type of a schedule. */
export const scheduleResourceActions: Record<string, Entry[]> = {
  // the nested stack itself, and its template, read from the bucket with the caller's rights
  "AWS::CloudFormation::Stack": [
    {
      actions: [
        "cloudformation:CreateStack",
        "cloudformation:UpdateStack",
        "cloudformation:DeleteStack",
        "cloudformation:DescribeStacks",
        "cloudformation:DescribeStackEvents",
        "cloudformation:GetTemplate",
        "cloudformation:GetStackPolicy",
        "cloudformation:TagResource",
        // teardown lists the nested stack's roles and log group to check them gone by name
        "cloudformation:ListStackResources",
      ],
      scope: "scheduleStacks",
    },
    { actions: ["s3:GetObject"], scope: "objects" },
  ],
  "AWS::Logs::LogGroup": [
    {
      actions: LOG_GROUP_ACTIONS,
      scope: "recorderLogGroups",
    },
    { actions: ["logs:DescribeLogGroups"], scope: "any" },
  ],
  "AWS::IAM::Role": [{ actions: IAM_ROLE_ACTIONS, scope: "roles" }],
  "AWS::Lambda::Function": [
    {
      actions: LAMBDA_FUNCTION_ACTIONS,
      scope: "recorderFunctions",
    },
    // the recorder's zip, read from the bucket; its role, passed to Lambda
    { actions: ["s3:GetObject", "s3:GetObjectVersion"], scope: "objects" },
    { actions: ["iam:PassRole"], scope: "scheduleRoles" },
  ],
  "AWS::StepFunctions::StateMachine": [
    {
      actions: [
        "states:CreateStateMachine",
        "states:UpdateStateMachine",
        "states:DeleteStateMachine",
        "states:DescribeStateMachine",
        "states:TagResource",
        "states:UntagResource",
        "states:ListTagsForResource",
      ],
      scope: "stateMachines",
    },
    { actions: ["iam:PassRole"], scope: "scheduleRoles" },
  ],
  "AWS::Scheduler::ScheduleGroup": [
    {
      actions: [
        "scheduler:CreateScheduleGroup",
        "scheduler:DeleteScheduleGroup",
        "scheduler:GetScheduleGroup",
        "scheduler:TagResource",
        "scheduler:UntagResource",
        "scheduler:ListTagsForResource",
      ],
      scope: "scheduleGroups",
    },
  ],
  "AWS::Scheduler::Schedule": [
    {
      actions: [
        "scheduler:CreateSchedule",
        "scheduler:UpdateSchedule",
        "scheduler:DeleteSchedule",
        "scheduler:GetSchedule",
      ],
      scope: "schedules",
    },
    { actions: ["iam:PassRole"], scope: "scheduleRoles" },
  ],
};
