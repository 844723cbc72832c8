import { vcpuQuotaCodes } from "./ec2-vcpu-quota.js";
import { functionName, logGroupName, parameterPath, stackName, tagKey, tagValue } from "./naming.js";
import { IAM_ROLE_ACTIONS, LAMBDA_FUNCTION_ACTIONS, LOG_GROUP_ACTIONS } from "./resource-type-actions.js";
import {
  type ScheduleScope,
  scheduleCallActions,
  scheduleResourceActions,
  scheduleRoleServices,
  scheduleScopeResources,
} from "./schedule-policy.js";
import { readHandlerActions } from "./schema-permissions.js";

/**
 * The least-privilege IAM policy for the person (or CI role) running quota, deploy, run and
 * teardown: `deploy --print-operator-policy`.
 *
 * Two parts, each kept next to the code it serves so the policy cannot drift:
 * - `plannedCallActions`: every AWS call the tool itself makes (the operations its planned-call
 *   recorder sees, "Service.Operation"), with the IAM actions each needs. A test runs every
 *   command on the stubbed transport and fails if a recorded call is missing here.
 * - `stackResourceActions`: what CloudFormation does with the caller's permissions (no service
 *   role) to create, update, roll back and delete each resource type of the stack, from the
 *   types' published resource schemas (resource-schemas.ts). A test fails if a template gains a
 *   resource type missing here, or a schema a permission neither granted here nor left out with
 *   its reason in schema-permissions.ts.
 */

type Scope =
  | "stack"
  | "function"
  | "bucket"
  | "objects"
  | "parameters"
  | "amiParameter"
  | "roles"
  | "instanceProfiles"
  | "logGroup"
  | "ec2"
  | "quota"
  | "any"
  | ScheduleScope;

/** A declared call: its IAM actions, where they apply, and (optional calls) what is lost without them. */
interface CallEntry {
  actions: string[];
  scope: Scope;
  /** Set when the tool works without the call: what goes missing then (the dry run does not fail on it). */
  withoutIt?: string;
}

export const plannedCallActions: Record<string, CallEntry> = {
  // identity (GetCallerIdentity needs no permission: always allowed)
  "STS.GetCallerIdentity": { actions: [], scope: "any" },
  // quota get | request | history, and the preflight's quota
  "ServiceQuotas.GetServiceQuota": { actions: ["servicequotas:GetServiceQuota"], scope: "quota" },
  "ServiceQuotas.GetAWSDefaultServiceQuota": {
    actions: ["servicequotas:GetAWSDefaultServiceQuota"],
    scope: "quota",
  },
  "ServiceQuotas.ListServiceQuotas": { actions: ["servicequotas:ListServiceQuotas"], scope: "any" },
  "ServiceQuotas.ListAWSDefaultServiceQuotas": {
    actions: ["servicequotas:ListAWSDefaultServiceQuotas"],
    scope: "any",
  },
  "ServiceQuotas.ListRequestedServiceQuotaChangeHistoryByQuota": {
    actions: ["servicequotas:ListRequestedServiceQuotaChangeHistoryByQuota"],
    scope: "any",
  },
  "ServiceQuotas.RequestServiceQuotaIncrease": {
    actions: ["servicequotas:RequestServiceQuotaIncrease"],
    scope: "quota",
  },
  // the stack
  "CloudFormation.DescribeStacks": { actions: ["cloudformation:DescribeStacks"], scope: "stack" },
  "CloudFormation.DescribeStackEvents": { actions: ["cloudformation:DescribeStackEvents"], scope: "stack" },
  "CloudFormation.ListStackResources": { actions: ["cloudformation:ListStackResources"], scope: "stack" },
  "CloudFormation.CreateStack": {
    actions: ["cloudformation:CreateStack", "cloudformation:TagResource"],
    scope: "stack",
  },
  "CloudFormation.UpdateStack": {
    actions: ["cloudformation:UpdateStack", "cloudformation:TagResource"],
    scope: "stack",
  },
  "CloudFormation.DeleteStack": { actions: ["cloudformation:DeleteStack"], scope: "stack" },
  // where the server runs, and the region's opt-in status
  "EC2.DescribeRegions": { actions: ["ec2:DescribeRegions"], scope: "any" },
  "EC2.DescribeVpcs": { actions: ["ec2:DescribeVpcs"], scope: "any" },
  "EC2.DescribeSubnets": { actions: ["ec2:DescribeSubnets"], scope: "any" },
  "EC2.DescribeRouteTables": { actions: ["ec2:DescribeRouteTables"], scope: "any" },
  // which zones offer the server's instance type
  "EC2.DescribeInstanceTypeOfferings": { actions: ["ec2:DescribeInstanceTypeOfferings"], scope: "any" },
  "EC2.DescribeInstances": { actions: ["ec2:DescribeInstances"], scope: "any" },
  // the server's vCPUs against the account's EC2 vCPU quota (ec2-vcpu-quota.ts)
  "EC2.DescribeInstanceTypes": { actions: ["ec2:DescribeInstanceTypes"], scope: "any" },
  // the VPC function (issue 12): deploy checks the group, the preflight the subnets' S3 endpoints
  // and the group's egress (DescribeSubnets and DescribeRouteTables above serve it too)
  "EC2.DescribeSecurityGroups": { actions: ["ec2:DescribeSecurityGroups"], scope: "any" },
  "EC2.DescribeVpcEndpoints": { actions: ["ec2:DescribeVpcEndpoints"], scope: "any" },
  // the agent code, test objects, bucket emptying
  "S3.HeadObject": { actions: ["s3:GetObject"], scope: "objects" },
  "S3.PutObject": { actions: ["s3:PutObject"], scope: "objects" },
  "S3.ListObjectVersions": { actions: ["s3:ListBucketVersions"], scope: "bucket" },
  "S3.ListMultipartUploads": { actions: ["s3:ListBucketMultipartUploads"], scope: "bucket" },
  "S3.DeleteObjects": { actions: ["s3:DeleteObject", "s3:DeleteObjectVersion"], scope: "objects" },
  "S3.AbortMultipartUpload": { actions: ["s3:AbortMultipartUpload"], scope: "objects" },
  // the iperf3 secrets and status; the AMI's public parameter
  "SSM.GetParameter": { actions: ["ssm:GetParameter"], scope: "parameters" },
  "SSM.PutParameter": { actions: ["ssm:PutParameter"], scope: "parameters" },
  "SSM.AddTagsToResource": { actions: ["ssm:AddTagsToResource"], scope: "parameters" },
  "SSM.DeleteParameter": { actions: ["ssm:DeleteParameter"], scope: "parameters" },
  "SSM.DeleteParameters": { actions: ["ssm:DeleteParameters"], scope: "parameters" },
  "SSM.GetParametersByPath": { actions: ["ssm:GetParametersByPath"], scope: "parameters" },
  // one published version per memory size, invocations, clean-up
  "Lambda.GetAccountSettings": { actions: ["lambda:GetAccountSettings"], scope: "any" },
  "Lambda.GetFunctionConfiguration": { actions: ["lambda:GetFunctionConfiguration"], scope: "function" },
  "Lambda.GetFunction": { actions: ["lambda:GetFunction"], scope: "function" },
  "Lambda.UpdateFunctionCode": { actions: ["lambda:UpdateFunctionCode"], scope: "function" },
  "Lambda.UpdateFunctionConfiguration": {
    actions: ["lambda:UpdateFunctionConfiguration"],
    scope: "function",
  },
  "Lambda.PublishVersion": { actions: ["lambda:PublishVersion"], scope: "function" },
  "Lambda.GetAlias": { actions: ["lambda:GetAlias"], scope: "function" },
  "Lambda.CreateAlias": { actions: ["lambda:CreateAlias"], scope: "function" },
  "Lambda.UpdateAlias": { actions: ["lambda:UpdateAlias"], scope: "function" },
  "Lambda.ListAliases": { actions: ["lambda:ListAliases"], scope: "function" },
  "Lambda.DeleteAlias": { actions: ["lambda:DeleteAlias"], scope: "function" },
  "Lambda.ListVersionsByFunction": { actions: ["lambda:ListVersionsByFunction"], scope: "function" },
  "Lambda.DeleteFunction": { actions: ["lambda:DeleteFunction"], scope: "function" },
  "Lambda.Invoke": { actions: ["lambda:InvokeFunction"], scope: "function" },
  // teardown's checks: nothing tagged, no role, instance profile or log group left
  "ResourceGroupsTaggingAPI.GetResources": { actions: ["tag:GetResources"], scope: "any" },
  // bucket emptying where ListObjectVersions is not implemented (S3-compatible servers)
  "S3.ListObjectsV2": { actions: ["s3:ListBucket"], scope: "bucket" },
  "IAM.GetRole": { actions: ["iam:GetRole"], scope: "roles" },
  // deploy --dry-run: EC2's own dry runs of the server (allowed or denied, nothing created) and
  // the policy simulator on the operator's own principal
  "EC2.CreateSecurityGroup": { actions: ["ec2:CreateSecurityGroup"], scope: "ec2" },
  "EC2.RunInstances": { actions: ["ec2:RunInstances"], scope: "ec2" },
  // not granted here (the principal is yours, not ours): without it the check says it could not run
  "IAM.SimulatePrincipalPolicy": { actions: [], scope: "any" },
  "IAM.GetInstanceProfile": { actions: ["iam:GetInstanceProfile"], scope: "instanceProfiles" },
  "CloudWatchLogs.DescribeLogGroups": { actions: ["logs:DescribeLogGroups"], scope: "any" },
  // the estimate's server price where the table lacks it (the Price List API has no resources)
  "Pricing.GetProducts": {
    actions: ["pricing:GetProducts"],
    scope: "any",
    withoutIt: "the estimate shows the server's price as not in the table",
  },
};

/** CloudFormation create / update / rollback / delete of each resource type, with the caller's rights. */
export const stackResourceActions: Record<string, { actions: string[]; scope: Scope }[]> = {
  "AWS::S3::Bucket": [
    {
      actions: [
        "s3:CreateBucket",
        "s3:DeleteBucket",
        "s3:GetBucketLocation",
        "s3:GetBucketAcl",
        // the configurations the template sets (public access block, encryption, ownership,
        // lifecycle, tags)
        "s3:PutBucketPublicAccessBlock",
        "s3:PutEncryptionConfiguration",
        "s3:PutBucketOwnershipControls",
        "s3:PutLifecycleConfiguration",
        "s3:PutBucketTagging",
        // the read handler reads every configuration the type has, set or not: all of its list
        ...readHandlerActions("AWS::S3::Bucket"),
      ],
      scope: "bucket",
    },
  ],
  "AWS::S3::BucketPolicy": [
    { actions: ["s3:PutBucketPolicy", "s3:GetBucketPolicy", "s3:DeleteBucketPolicy"], scope: "bucket" },
  ],
  "AWS::Logs::LogGroup": [
    {
      actions: LOG_GROUP_ACTIONS,
      scope: "logGroup",
    },
    { actions: ["logs:DescribeLogGroups"], scope: "any" },
  ],
  "AWS::IAM::Role": [
    {
      actions: IAM_ROLE_ACTIONS,
      scope: "roles",
    },
  ],
  "AWS::IAM::InstanceProfile": [
    {
      actions: [
        "iam:CreateInstanceProfile",
        "iam:DeleteInstanceProfile",
        "iam:GetInstanceProfile",
        "iam:AddRoleToInstanceProfile",
        "iam:RemoveRoleFromInstanceProfile",
      ],
      scope: "instanceProfiles",
    },
  ],
  "AWS::Lambda::Function": [
    {
      actions: LAMBDA_FUNCTION_ACTIONS,
      scope: "function",
    },
    // CreateFunction reads the code from the stack's bucket with the caller's rights
    { actions: ["s3:GetObject", "s3:GetObjectVersion"], scope: "objects" },
    // a function with VpcConfig: Lambda checks the subnets and groups with the caller's rights;
    // CloudFormation waits for Lambda to delete its ENIs only if it may describe them
    {
      actions: [
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeSubnets",
        "ec2:DescribeVpcs",
        "ec2:DescribeNetworkInterfaces",
      ],
      scope: "any",
    },
  ],
  "AWS::EC2::SecurityGroup": [
    {
      actions: [
        "ec2:CreateSecurityGroup",
        "ec2:DescribeSecurityGroups",
        "ec2:AuthorizeSecurityGroupIngress",
        "ec2:RevokeSecurityGroupIngress",
        "ec2:RevokeSecurityGroupEgress",
        "ec2:AuthorizeSecurityGroupEgress",
        "ec2:DeleteSecurityGroup",
        "ec2:CreateTags",
        "ec2:DeleteTags",
        "ec2:UpdateSecurityGroupRuleDescriptionsIngress",
        "ec2:UpdateSecurityGroupRuleDescriptionsEgress",
      ],
      scope: "ec2",
    },
  ],
  // the server's launch template: only what RunInstances cannot say itself (its network
  // interface's tags), created with our tag (TagSpecifications), changed only while it carries it
  "AWS::EC2::LaunchTemplate": [
    {
      actions: [
        "ec2:CreateLaunchTemplate",
        "ec2:CreateLaunchTemplateVersion",
        "ec2:DeleteLaunchTemplate",
        "ec2:DescribeLaunchTemplates",
        "ec2:CreateTags",
        "ec2:DeleteTags",
      ],
      scope: "ec2",
    },
  ],
  "AWS::EC2::Instance": [
    {
      actions: [
        "ec2:RunInstances",
        "ec2:TerminateInstances",
        "ec2:StopInstances",
        "ec2:StartInstances",
        "ec2:ModifyInstanceAttribute",
        "ec2:DescribeInstances",
        "ec2:DescribeInstanceStatus",
        "ec2:DescribeNetworkInterfaces",
        "ec2:DescribeImages",
        "ec2:CreateTags",
        "ec2:DeleteTags",
        "ec2:CreateNetworkInterface",
        "ec2:ModifyInstanceMetadataOptions",
        "ec2:ModifyInstanceMaintenanceOptions",
        "ec2:AssociateIamInstanceProfile",
        "ec2:DisassociateIamInstanceProfile",
        "ec2:ReplaceIamInstanceProfileAssociation",
        "ec2:DescribeIamInstanceProfileAssociations",
        "ec2:DescribeInstanceAttribute",
        "ec2:DescribeInstanceCreditSpecifications",
        "ec2:DescribeVolumes",
        "ec2:DescribeKeyPairs",
        "ec2:DescribeLaunchTemplates",
        "ec2:DescribeLaunchTemplateVersions",
      ],
      scope: "ec2",
    },
    // RunInstances passes the server role through its instance profile
    { actions: ["iam:PassRole"], scope: "roles" },
    // the read handler looks for Systems Manager associations of the instance
    { actions: ["ssm:DescribeAssociation", "ssm:ListAssociations"], scope: "any" },
  ],
};

/**
 * The single list of AWS calls the tool makes, "Service.Operation" as the planned-call recorder
 * names them, with the IAM actions each needs. Every client checks its calls against it
 * (planned-calls.ts), so a call missing here fails at once instead of missing from the policy.
 */
export function declaredCalls(): Record<string, CallEntry> {
  return { ...plannedCallActions, ...scheduleCallActions };
}

/** The actions the tool works without, each with what goes missing then. */
export function optionalOperatorActions(): Map<string, string> {
  const optional = new Map<string, string>();
  for (const entry of Object.values(declaredCalls()))
    if (entry.withoutIt) for (const action of entry.actions) optional.set(action, entry.withoutIt);
  return optional;
}

/** CloudFormation's needs per resource type: the region's stack, then a schedule's nested stack. */
export function declaredResourceActions(): Array<Record<string, { actions: string[]; scope: Scope }[]>> {
  return [stackResourceActions, scheduleResourceActions];
}

function resources(scope: Scope): string | string[] {
  const partition = "arn:aws";
  switch (scope) {
    case "stack":
      return `${partition}:cloudformation:*:*:stack/${stackName}/*`;
    case "function":
      // the agent and its VPC variant (`${functionName}-vpc`)
      return [
        `${partition}:lambda:*:*:function:${functionName}`,
        `${partition}:lambda:*:*:function:${functionName}:*`,
        `${partition}:lambda:*:*:function:${functionName}-vpc`,
        `${partition}:lambda:*:*:function:${functionName}-vpc:*`,
      ];
    case "bucket":
      // CloudFormation names the bucket <stack>-bucket-<random>, lower-case
      return `${partition}:s3:::${stackName}-bucket-*`;
    case "objects":
      return `${partition}:s3:::${stackName}-bucket-*/*`;
    case "parameters":
      return [
        `${partition}:ssm:*:*:parameter${parameterPath}*`,
        // the latest Amazon Linux 2023 AMI id, AWS's public parameter (no account)
        `${partition}:ssm:*::parameter/aws/service/ami-amazon-linux-latest/*`,
      ];
    case "amiParameter":
      return `${partition}:ssm:*::parameter/aws/service/ami-amazon-linux-latest/*`;
    case "roles":
      // CloudFormation names roles <stack>-<logical id>-<random>
      return `${partition}:iam::*:role/${stackName}-*`;
    case "instanceProfiles":
      return `${partition}:iam::*:instance-profile/${stackName}-*`;
    case "logGroup":
      return [
        `${partition}:logs:*:*:log-group:${logGroupName}`,
        `${partition}:logs:*:*:log-group:${logGroupName}:*`,
        `${partition}:logs:*:*:log-group:${logGroupName}-vpc`,
        `${partition}:logs:*:*:log-group:${logGroupName}-vpc:*`,
      ];
    case "quota":
      return [
        `${partition}:servicequotas:*:*:lambda/L-14320ECE`,
        ...vcpuQuotaCodes.map((code) => `${partition}:servicequotas:*:*:ec2/${code}`),
      ];
    case "ec2":
    case "any":
      return "*";
    default:
      return scheduleScopeResources[scope];
  }
}

interface Statement {
  Sid: string;
  Effect: "Allow";
  Action: string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

/** The EC2 actions that create a resource: allowed only with our tag in the request. */
const ec2CreateActions = [
  "ec2:CreateSecurityGroup",
  "ec2:CreateLaunchTemplate",
  "ec2:RunInstances",
  "ec2:CreateNetworkInterface",
];

/** The stack's own roles, passed only to the services that run them (the agent, the server). */
const passOwnRoles = (): Statement => ({
  Sid: "PassOwnRoles",
  Effect: "Allow",
  Action: ["iam:PassRole"],
  Resource: resources("roles"),
  Condition: { StringEquals: { "iam:PassedToService": ["lambda.amazonaws.com", "ec2.amazonaws.com"] } },
});
const hasPassOwnRoles = (statements: Statement[]) => statements.some((s) => s.Sid === "PassOwnRoles");

/** The policy document: one statement per resource scope, actions sorted, no wildcard action. */
export function operatorPolicy(): { Version: "2012-10-17"; Statement: Statement[] } {
  const byScope = new Map<Scope, Set<string>>();
  const add = (scope: Scope, actions: string[]) => {
    const set = byScope.get(scope) ?? new Set<string>();
    for (const action of actions) set.add(action);
    byScope.set(scope, set);
  };
  for (const entry of Object.values(declaredCalls())) add(entry.scope, entry.actions);
  for (const table of declaredResourceActions())
    for (const entries of Object.values(table)) for (const entry of entries) add(entry.scope, entry.actions);

  const statements: Statement[] = [];
  const sid = (scope: string) => scope.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
  for (const [scope, set] of [...byScope].sort(([a], [b]) => a.localeCompare(b))) {
    const passRole = set.delete("iam:PassRole");
    if (scope === "ec2") {
      // mutations limited to what carries our tag, or what is being created with it
      const describe = [...set].filter((a) => a.startsWith("ec2:Describe")).sort();
      const mutate = [...set].filter((a) => !a.startsWith("ec2:Describe")).sort();
      statements.push({ Sid: "Ec2Describe", Effect: "Allow", Action: describe, Resource: "*" });
      statements.push({
        Sid: "Ec2CreateTagged",
        Effect: "Allow",
        Action: [...ec2CreateActions, "ec2:CreateTags"].filter((a) => mutate.includes(a)),
        Resource: "*",
        Condition: { StringEquals: { [`aws:RequestTag/${tagKey}`]: tagValue } },
      });
      statements.push({
        Sid: "Ec2LaunchFromUntaggedParts",
        Effect: "Allow",
        Action: ["ec2:RunInstances", "ec2:CreateNetworkInterface"],
        Resource: [
          "arn:aws:ec2:*::image/*",
          "arn:aws:ec2:*:*:subnet/*",
          "arn:aws:ec2:*:*:security-group/*",
          "arn:aws:ec2:*:*:network-interface/*",
          "arn:aws:ec2:*:*:volume/*",
          // the stack's own launch template (RunInstances authorizes it as a part of the launch)
          "arn:aws:ec2:*:*:launch-template/*",
        ],
      });
      statements.push({
        Sid: "Ec2ChangeOwnResources",
        Effect: "Allow",
        Action: mutate.filter((a) => !ec2CreateActions.includes(a)),
        Resource: "*",
        Condition: { StringEquals: { [`aws:ResourceTag/${tagKey}`]: tagValue } },
      });
    } else if (set.size > 0) {
      statements.push({
        Sid: sid(scope),
        Effect: "Allow",
        Action: [...set].sort(),
        Resource: resources(scope),
      });
    }
    if (passRole && scope === "scheduleRoles")
      // the nested stack's roles, only to the services that assume them
      statements.push({
        Sid: "PassScheduleRoles",
        Effect: "Allow",
        Action: ["iam:PassRole"],
        Resource: resources("scheduleRoles"),
        Condition: { StringEquals: { "iam:PassedToService": scheduleRoleServices } },
      });
    else if (passRole && !hasPassOwnRoles(statements)) statements.push(passOwnRoles());
  }
  // Lambda's CreateFunction passes the agent role too
  if (!hasPassOwnRoles(statements)) statements.push(passOwnRoles());
  return { Version: "2012-10-17", Statement: statements };
}

type PolicyDocument = ReturnType<typeof operatorPolicy>;

/** IAM's limit for one customer managed policy, in characters, white space not counted. */
export const managedPolicyCharacters = 6_144;

const policySize = (document: PolicyDocument) => JSON.stringify(document).replace(/\s/g, "").length;

/**
 * Splits a policy into documents that each fit `limit`, statements kept whole and in order
 * (first fit): the whole operator policy is over IAM's limit for one managed policy.
 */
export function splitPolicy(document: PolicyDocument, limit = managedPolicyCharacters): PolicyDocument[] {
  const parts: PolicyDocument[] = [];
  for (const statement of document.Statement) {
    const alone = { Version: document.Version, Statement: [statement] };
    if (policySize(alone) > limit)
      throw new Error(`statement ${statement.Sid} alone is ${policySize(alone)} characters, over ${limit}`);
    const fits = parts.find(
      (part) => policySize({ ...part, Statement: [...part.Statement, statement] }) <= limit,
    );
    if (fits) fits.Statement.push(statement);
    else parts.push(alone);
  }
  return parts;
}

/** The operator policy as named managed policies, each within IAM's size limit. */
export function operatorPolicies(): Array<{ name: string; document: PolicyDocument }> {
  return splitPolicy(operatorPolicy()).map((document, index) => ({
    name: `${stackName}-operator-${index + 1}`,
    document,
  }));
}

/** How to create and attach the printed policies (for a role; a user or group has its own verb). */
export function attachPoliciesHelp(names: string[]): string {
  return [
    `${names.length} managed policies (IAM allows ${managedPolicyCharacters} characters in one): save the output, then`,
    ...names.map(
      (name, index) =>
        `  jq '.[${index}].PolicyDocument' policies.json > ${name}.json && aws iam create-policy --policy-name ${name} --policy-document file://${name}.json`,
    ),
    ...names.map(
      (name) =>
        `  aws iam attach-role-policy --role-name ROLE --policy-arn arn:aws:iam::ACCOUNT:policy/${name}`,
    ),
    "  (attach-user-policy --user-name or attach-group-policy --group-name for a user or group; a role holds 10 managed policies by default)",
  ].join("\n");
}

/** Every action the policy grants (for tests and the docs). */
export function operatorPolicyActions(): Set<string> {
  return new Set(operatorPolicy().Statement.flatMap((statement) => statement.Action));
}
