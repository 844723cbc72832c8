import type { Architecture } from "../../plan/architecture.js";
import { agentFunction, agentLogGroup, agentRole } from "./agent-function-resources.js";
import {
  agentCodePrefix,
  functionName,
  logGroupName,
  tagKey,
  tagValue,
  testObjectExpirationDays,
  testObjectPrefix,
} from "./naming.js";
import { type ServerTemplateOptions, serverResources } from "./server-template.js";
import { type VpcVariantOptions, vpcAgentOutputs, vpcAgentResources } from "./vpc-variant.js";

export { instanceArchitecture, type ServerTemplateOptions } from "./server-template.js";

/** What the region's stack holds; the template is a pure function of it. */
export interface StackTemplateOptions {
  /** Key of the agent zip in the stack's bucket; null on the first pass (bucket only). */
  agentCodeKey: string | null;
  arch: Architecture;
  /** $LATEST's memory; each measured size gets its own published version. */
  memoryMb: number;
  timeoutSeconds: number;
  /** The iperf3 server (server-template.ts), or null for none. */
  server: ServerTemplateOptions | null;
  /** The agent's VPC variant beside the non-VPC function (`deploy --vpc-subnets`); absent: none. */
  vpc?: VpcVariantOptions | null;
  /**
   * `deploy --vpc-only`: the VPC function alone, for accounts whose policies refuse a function
   * outside a VPC (an SCP on `lambda:VpcIds`); the stack's FunctionName is then the VPC function.
   */
  vpcOnly?: boolean;
}

export type CfnTemplate = {
  AWSTemplateFormatVersion: "2010-09-09";
  Description: string;
  Parameters: Record<string, Record<string, unknown>>;
  Resources: Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;
  Outputs: Record<string, { Value: unknown; Description?: string }>;
};

const tags = [{ Key: tagKey, Value: tagValue }];

export function buildStackTemplate(options: StackTemplateOptions): CfnTemplate {
  const template: CfnTemplate = {
    AWSTemplateFormatVersion: "2010-09-09",
    Description:
      "lambda-netbench: test function, bucket and optional iperf3 server (delete with `lambda-netbench teardown`)",
    Parameters: {},
    Resources: {
      Bucket: {
        Type: "AWS::S3::Bucket",
        Properties: {
          PublicAccessBlockConfiguration: {
            BlockPublicAcls: true,
            BlockPublicPolicy: true,
            IgnorePublicAcls: true,
            RestrictPublicBuckets: true,
          },
          BucketEncryption: {
            ServerSideEncryptionConfiguration: [
              { ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } },
            ],
          },
          OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
          LifecycleConfiguration: {
            Rules: [
              {
                Id: "expire-test-objects",
                Status: "Enabled",
                Prefix: testObjectPrefix,
                ExpirationInDays: testObjectExpirationDays,
                NoncurrentVersionExpiration: { NoncurrentDays: 1 },
              },
              {
                Id: "abort-incomplete-uploads",
                Status: "Enabled",
                Prefix: "",
                AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              },
            ],
          },
          Tags: tags,
        },
      },
      BucketPolicy: {
        Type: "AWS::S3::BucketPolicy",
        Properties: {
          Bucket: { Ref: "Bucket" },
          PolicyDocument: {
            Version: "2012-10-17",
            Statement: [
              {
                Sid: "DenyPlainHttp",
                Effect: "Deny",
                Principal: "*",
                Action: "s3:*",
                // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub placeholder
                Resource: [{ "Fn::GetAtt": ["Bucket", "Arn"] }, { "Fn::Sub": "${Bucket.Arn}/*" }],
                Condition: { Bool: { "aws:SecureTransport": "false" } },
              },
            ],
          },
        },
      },
    },
    Outputs: {
      BucketName: { Value: { Ref: "Bucket" }, Description: "bucket of the agent code and the test objects" },
    },
  };

  if (options.agentCodeKey !== null) {
    if (!options.agentCodeKey.startsWith(agentCodePrefix))
      throw new Error(`agentCodeKey must start with ${agentCodePrefix}`);
    if (options.vpcOnly && !options.vpc) throw new Error("vpcOnly needs the VPC function (vpc)");
    if (!options.vpcOnly) Object.assign(template.Resources, functionResources(options, options.agentCodeKey));
    template.Outputs.FunctionName = {
      Value: { Ref: options.vpcOnly ? "AgentVpcFunction" : "AgentFunction" },
    };
    if (options.vpcOnly)
      template.Outputs.VpcOnly = {
        Value: "true",
        Description: "only the VPC function: no function outside a VPC",
      };
    template.Outputs.AgentCodeKey = { Value: options.agentCodeKey };
    template.Outputs.FunctionArchitecture = { Value: options.arch };
    // $LATEST's own values: a run restores them, even after a killed run left $LATEST changed
    template.Outputs.FunctionMemoryMb = { Value: String(options.memoryMb) };
    if (options.vpc) {
      Object.assign(
        template.Resources,
        vpcAgentResources(options.vpc, { ...options, codeKey: options.agentCodeKey }),
      );
      Object.assign(template.Outputs, vpcAgentOutputs(options.vpc));
    }
  }
  if (options.server) {
    const server = serverResources(options.server);
    Object.assign(template.Resources, server.resources);
    Object.assign(template.Outputs, server.outputs);
  }
  return template;
}

function functionResources(options: StackTemplateOptions, codeKey: string): CfnTemplate["Resources"] {
  return {
    AgentLogGroup: agentLogGroup(logGroupName),
    AgentRole: agentRole({
      description: "lambda-netbench agent: test objects of its bucket and its own log group only",
      policyName: "test-objects-and-logs",
      logGroupId: "AgentLogGroup",
    }),
    AgentFunction: agentFunction({
      functionName,
      description: "lambda-netbench agent: runs one network probe per invocation",
      roleId: "AgentRole",
      logGroupId: "AgentLogGroup",
      dependsOn: ["AgentLogGroup"],
      arch: options.arch,
      memoryMb: options.memoryMb,
      timeoutSeconds: options.timeoutSeconds,
      codeKey,
    }),
  };
}
