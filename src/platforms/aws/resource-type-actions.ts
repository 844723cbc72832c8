/**
 * What CloudFormation does with the caller's rights to create, update, roll back and delete a
 * resource of each type, where both the region's stack and a schedule's nested stack have that
 * type (operator-policy.ts and schedule-policy.ts scope them to their own resources). Taken from
 * the types' published resource schemas (resource-schemas.ts; schema-permissions.ts says what
 * is left out and why).
 */
export const IAM_ROLE_ACTIONS = [
  "iam:CreateRole",
  "iam:DeleteRole",
  "iam:GetRole",
  "iam:UpdateRole",
  "iam:UpdateRoleDescription",
  "iam:UpdateAssumeRolePolicy",
  "iam:PutRolePolicy",
  "iam:GetRolePolicy",
  "iam:DeleteRolePolicy",
  "iam:ListRolePolicies",
  "iam:ListAttachedRolePolicies",
  "iam:TagRole",
  "iam:UntagRole",
  "iam:ListRoleTags",
  // a permissions boundary (deploy --permissions-boundary) is set and kept on every role
  "iam:PutRolePermissionsBoundary",
  "iam:DeleteRolePermissionsBoundary",
];

export const LAMBDA_FUNCTION_ACTIONS = [
  "lambda:CreateFunction",
  "lambda:DeleteFunction",
  "lambda:GetFunction",
  "lambda:GetFunctionConfiguration",
  // the read handler, run after every create and update
  "lambda:GetFunctionCodeSigningConfig",
  "lambda:GetFunctionRecursionConfig",
  "lambda:GetRuntimeManagementConfig",
  "lambda:GetFunctionScalingConfig",
  "lambda:UpdateFunctionCode",
  "lambda:UpdateFunctionConfiguration",
  "lambda:TagResource",
  "lambda:UntagResource",
  "lambda:ListTags",
];

export const LOG_GROUP_ACTIONS = [
  "logs:CreateLogGroup",
  "logs:DeleteLogGroup",
  "logs:PutRetentionPolicy",
  "logs:DeleteRetentionPolicy",
  "logs:TagResource",
  "logs:UntagResource",
  "logs:ListTagsForResource",
  "logs:GetDataProtectionPolicy",
];
