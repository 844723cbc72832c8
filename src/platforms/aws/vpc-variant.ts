import type { Architecture } from "../platform.js";
import { functionName, tagKey, tagValue, testObjectPrefix } from "./naming.js";

/**
 * The VPC variant of the agent: the same code attached to the user's subnets, beside the
 * non-VPC function. The bandwidth quota covers functions outside a VPC only, so a plan with
 * `vpc: [false, true]` measures what attaching to a VPC costs. Its own security group has no
 * ingress (nothing connects to a Lambda ENI); its own role adds the ENI permissions Lambda needs,
 * so the non-VPC function never gets them.
 */
export const vpcFunctionName = `${functionName}-vpc`;
export const vpcLogGroupName = `/aws/lambda/${vpcFunctionName}`;

export interface VpcVariantOptions {
  vpcId: string;
  subnetIds: string[];
  /** The user's security group for the function; null: the stack creates one with no ingress. */
  securityGroupId: string | null;
}

const subnetPattern = /^subnet-[0-9a-f]{8,17}$/;
const securityGroupPattern = /^sg-[0-9a-f]{8,17}$/;

/** Checks `--vpc-subnets S1,S2` and `--vpc-security-group SG` before any call; throws naming the option. */
export function parseVpcOptions(
  subnets: string,
  securityGroup: string | undefined,
): {
  subnetIds: string[];
  securityGroupId: string | null;
} {
  const subnetIds = subnets
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (subnetIds.length === 0 || subnetIds.length > 16)
    throw new Error(
      "--vpc-subnets: 1 to 16 subnet ids, comma-separated (e.g. subnet-0abc12345678def01,subnet-...)",
    );
  for (const id of subnetIds)
    if (!subnetPattern.test(id))
      throw new Error(`--vpc-subnets: "${id}" is not a subnet id (allowed: subnet- and 8-17 hex digits)`);
  if (new Set(subnetIds).size !== subnetIds.length) throw new Error("--vpc-subnets: each subnet once");
  if (securityGroup !== undefined && !securityGroupPattern.test(securityGroup))
    throw new Error(
      `--vpc-security-group: "${securityGroup}" is not a security group id (allowed: sg- and 8-17 hex digits)`,
    );
  return { subnetIds, securityGroupId: securityGroup ?? null };
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;

/** The VPC function, its role, log group and (unless given) security group. Pure. */
export function vpcAgentResources(
  vpc: VpcVariantOptions,
  agent: { arch: Architecture; memoryMb: number; timeoutSeconds: number; codeKey: string },
): Resources {
  const tags = [{ Key: tagKey, Value: tagValue }];
  const resources: Resources = {
    AgentVpcLogGroup: {
      Type: "AWS::Logs::LogGroup",
      Properties: { LogGroupName: vpcLogGroupName, RetentionInDays: 7, Tags: tags },
    },
    AgentVpcRole: {
      Type: "AWS::IAM::Role",
      Properties: {
        Description:
          "lambda-netbench VPC agent: test objects, its own log group, and the ENIs Lambda attaches",
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [
            { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
          ],
        },
        Policies: [
          {
            PolicyName: "test-objects-logs-enis",
            PolicyDocument: {
              Version: "2012-10-17",
              Statement: [
                {
                  Sid: "TestObjects",
                  Effect: "Allow",
                  Action: ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"],
                  Resource: { "Fn::Sub": `\${Bucket.Arn}/${testObjectPrefix}*` },
                },
                {
                  Sid: "OwnLogGroup",
                  Effect: "Allow",
                  Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
                  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub placeholder
                  Resource: { "Fn::Sub": "${AgentVpcLogGroup.Arn}" },
                },
                {
                  // what Lambda needs to attach the function to the subnets (the actions of AWS's
                  // AWSLambdaVPCAccessExecutionRole); these EC2 actions take no narrower resource here
                  Sid: "VpcNetworkInterfaces",
                  Effect: "Allow",
                  Action: [
                    "ec2:CreateNetworkInterface",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeSubnets",
                    "ec2:DeleteNetworkInterface",
                    "ec2:AssignPrivateIpAddresses",
                    "ec2:UnassignPrivateIpAddresses",
                  ],
                  Resource: "*",
                },
              ],
            },
          },
        ],
        Tags: tags,
      },
    },
  };
  if (vpc.securityGroupId === null) {
    resources.AgentVpcSecurityGroup = {
      Type: "AWS::EC2::SecurityGroup",
      Properties: {
        GroupDescription: "lambda-netbench VPC agent: no ingress, all egress",
        VpcId: vpc.vpcId,
        SecurityGroupEgress: [
          { IpProtocol: "-1", CidrIp: "0.0.0.0/0", Description: "S3, the iperf3 server" },
        ],
        Tags: tags,
      },
    };
  }
  resources.AgentVpcFunction = {
    Type: "AWS::Lambda::Function",
    DependsOn: ["AgentVpcLogGroup"],
    Properties: {
      FunctionName: vpcFunctionName,
      Description: "lambda-netbench agent attached to a VPC: runs one network probe per invocation",
      Runtime: "nodejs22.x",
      Handler: "index.handler",
      PackageType: "Zip",
      Architectures: [agent.arch],
      MemorySize: agent.memoryMb,
      Timeout: agent.timeoutSeconds,
      Role: { "Fn::GetAtt": ["AgentVpcRole", "Arn"] },
      Code: { S3Bucket: { Ref: "Bucket" }, S3Key: agent.codeKey },
      LoggingConfig: { LogGroup: { Ref: "AgentVpcLogGroup" }, LogFormat: "Text" },
      VpcConfig: {
        SubnetIds: vpc.subnetIds,
        SecurityGroupIds: [vpc.securityGroupId ?? { Ref: "AgentVpcSecurityGroup" }],
      },
      Tags: tags,
    },
  };
  return resources;
}
