import type { Architecture } from "../../plan/architecture.js";
import { tagKey, tagValue, testObjectPrefix } from "./naming.js";

/**
 * The CloudFormation resources every agent function has, whether it runs outside a VPC or in
 * one: its log group, its role (the test objects of the stack's bucket and its own log group,
 * plus what the caller adds) and the function. One definition for both functions, so their
 * permissions and settings cannot drift apart. Pure.
 */

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };

const tags = [{ Key: tagKey, Value: tagValue }];

export function agentLogGroup(logGroupName: string): Resource {
  return {
    Type: "AWS::Logs::LogGroup",
    Properties: { LogGroupName: logGroupName, RetentionInDays: 7, Tags: tags },
  };
}

export interface AgentRoleOptions {
  description: string;
  policyName: string;
  /** Logical id of the function's log group, the only one it may write to. */
  logGroupId: string;
  /** Statements beyond the test objects and the log group (the VPC function's ENI permissions). */
  extraStatements?: Record<string, unknown>[];
}

export function agentRole(options: AgentRoleOptions): Resource {
  return {
    Type: "AWS::IAM::Role",
    Properties: {
      Description: options.description,
      AssumeRolePolicyDocument: {
        Version: "2012-10-17",
        Statement: [
          { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
        ],
      },
      Policies: [
        {
          PolicyName: options.policyName,
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
                Resource: { "Fn::Sub": `\${${options.logGroupId}.Arn}` },
              },
              ...(options.extraStatements ?? []),
            ],
          },
        },
      ],
      Tags: tags,
    },
  };
}

export interface AgentFunctionOptions {
  functionName: string;
  description: string;
  roleId: string;
  logGroupId: string;
  dependsOn: string[];
  arch: Architecture;
  memoryMb: number;
  timeoutSeconds: number;
  /** Key of the agent zip in the stack's bucket. */
  codeKey: string;
  /** Extra function properties (the VPC function's VpcConfig). */
  extraProperties?: Record<string, unknown>;
}

export function agentFunction(options: AgentFunctionOptions): Resource {
  return {
    Type: "AWS::Lambda::Function",
    DependsOn: options.dependsOn,
    Properties: {
      FunctionName: options.functionName,
      Description: options.description,
      Runtime: "nodejs22.x",
      Handler: "index.handler",
      PackageType: "Zip",
      Architectures: [options.arch],
      MemorySize: options.memoryMb,
      Timeout: options.timeoutSeconds,
      Role: { "Fn::GetAtt": [options.roleId, "Arn"] },
      Code: { S3Bucket: { Ref: "Bucket" }, S3Key: options.codeKey },
      LoggingConfig: { LogGroup: { Ref: options.logGroupId }, LogFormat: "Text" },
      ...options.extraProperties,
      Tags: tags,
    },
  };
}
