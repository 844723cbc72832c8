/** What CloudFormation does with the caller's rights to create, update, roll back and delete an AWS::IAM::Role. */
export const IAM_ROLE_ACTIONS = [
  "iam:CreateRole",
  "iam:DeleteRole",
  "iam:GetRole",
  "iam:UpdateRole",
  "iam:UpdateAssumeRolePolicy",
  "iam:PutRolePolicy",
  "iam:GetRolePolicy",
  "iam:DeleteRolePolicy",
  "iam:ListRolePolicies",
  "iam:ListAttachedRolePolicies",
  "iam:TagRole",
  "iam:UntagRole",
];
