import type { Architecture } from "../platform.js";
import {
  agentCodePrefix,
  functionName,
  iperf3FirstPort,
  iperf3PasswordParameter,
  iperf3PrivateKeyParameter,
  iperf3StatusParameter,
  iperf3Username,
  logGroupName,
  tagKey,
  tagValue,
  testObjectExpirationDays,
  testObjectPrefix,
} from "./naming.js";

/** What the region's stack holds; the template is a pure function of it. */
export interface StackTemplateOptions {
  /** Key of the agent zip in the stack's bucket; null on the first pass (bucket only). */
  agentCodeKey: string | null;
  arch: Architecture;
  /** $LATEST's memory; each measured size gets its own published version. */
  memoryMb: number;
  timeoutSeconds: number;
  server: {
    instanceType: string;
    ttlHours: number;
    /** Number of iperf3 servers (ports 5201, 5202, ...): one test at a time per port. */
    ports: number;
    /** Bumped when the previous instance has reached its time-to-live, to get a new one. */
    generation: number;
    /** ISO time after which the instance terminates itself (recorded in the outputs). */
    expiresAt: string;
  } | null;
}

export type CfnTemplate = {
  AWSTemplateFormatVersion: "2010-09-09";
  Description: string;
  Parameters: Record<string, Record<string, unknown>>;
  Resources: Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;
  Outputs: Record<string, { Value: unknown; Description?: string }>;
};

const tags = [{ Key: tagKey, Value: tagValue }];

/** Graviton families carry a "g" after the generation digit (c8gn, m7g, t4g): arm64 AMIs. */
export function instanceArchitecture(instanceType: string): Architecture {
  const family = instanceType.split(".")[0] ?? "";
  return /^[a-z]+\d+[a-z]*g[a-z]*$/.test(family) ? "arm64" : "x86_64";
}

export function amiParameterName(arch: Architecture): string {
  return `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${arch}`;
}

export function serverLogicalId(generation: number): string {
  return `Iperf3Server${generation}`;
}

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
    Object.assign(template.Resources, functionResources(options, options.agentCodeKey));
    template.Outputs.FunctionName = { Value: { Ref: "AgentFunction" } };
    template.Outputs.AgentCodeKey = { Value: options.agentCodeKey };
    template.Outputs.FunctionArchitecture = { Value: options.arch };
  }
  if (options.server) addServer(template, options.server);
  return template;
}

function functionResources(options: StackTemplateOptions, codeKey: string): CfnTemplate["Resources"] {
  return {
    AgentLogGroup: {
      Type: "AWS::Logs::LogGroup",
      Properties: { LogGroupName: logGroupName, RetentionInDays: 7, Tags: tags },
    },
    AgentRole: {
      Type: "AWS::IAM::Role",
      Properties: {
        Description: "lambda-netbench agent: test objects of its bucket and its own log group only",
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [
            { Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" }, Action: "sts:AssumeRole" },
          ],
        },
        Policies: [
          {
            PolicyName: "test-objects-and-logs",
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
                  Resource: { "Fn::Sub": "${AgentLogGroup.Arn}" },
                },
              ],
            },
          },
        ],
        Tags: tags,
      },
    },
    AgentFunction: {
      Type: "AWS::Lambda::Function",
      DependsOn: ["AgentLogGroup"],
      Properties: {
        FunctionName: functionName,
        Description: "lambda-netbench agent: runs one network probe per invocation",
        Runtime: "nodejs22.x",
        Handler: "index.handler",
        PackageType: "Zip",
        Architectures: [options.arch],
        MemorySize: options.memoryMb,
        Timeout: options.timeoutSeconds,
        Role: { "Fn::GetAtt": ["AgentRole", "Arn"] },
        Code: { S3Bucket: { Ref: "Bucket" }, S3Key: codeKey },
        LoggingConfig: { LogGroup: { Ref: "AgentLogGroup" }, LogFormat: "Text" },
        Tags: tags,
      },
    },
  };
}

function addServer(template: CfnTemplate, server: NonNullable<StackTemplateOptions["server"]>): void {
  const arch = instanceArchitecture(server.instanceType);
  const lastPort = iperf3FirstPort + server.ports - 1;
  const instanceId = serverLogicalId(server.generation);
  template.Parameters.ServerImageId = {
    Type: "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>",
    Default: amiParameterName(arch),
    Description: "Amazon Linux 2023 AMI, resolved from AWS's public SSM parameter",
  };
  const parameterArn = (name: string) => ({
    "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${name}`,
  });
  Object.assign(template.Resources, {
    ServerSecurityGroup: {
      Type: "AWS::EC2::SecurityGroup",
      Properties: {
        GroupDescription: `lambda-netbench iperf3 server: TCP ${iperf3FirstPort}-${lastPort} only (RSA-authenticated), no SSH`,
        SecurityGroupIngress: [
          {
            IpProtocol: "tcp",
            FromPort: iperf3FirstPort,
            ToPort: lastPort,
            CidrIp: "0.0.0.0/0",
            Description: "iperf3 from Lambda (no fixed source address); iperf3 RSA auth guards it",
          },
        ],
        Tags: tags,
      },
    },
    ServerRole: {
      Type: "AWS::IAM::Role",
      Properties: {
        Description: "lambda-netbench iperf3 server: SSM management, its own secrets, its status",
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [
            { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" },
          ],
        },
        ManagedPolicyArns: [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub placeholder
          { "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/AmazonSSMManagedInstanceCore" },
        ],
        Policies: [
          {
            PolicyName: "iperf3-secrets-and-status",
            PolicyDocument: {
              Version: "2012-10-17",
              Statement: [
                {
                  Sid: "ReadOwnSecrets",
                  Effect: "Allow",
                  Action: "ssm:GetParameter",
                  Resource: [parameterArn(iperf3PrivateKeyParameter), parameterArn(iperf3PasswordParameter)],
                },
                {
                  Sid: "ReportStatus",
                  Effect: "Allow",
                  Action: ["ssm:PutParameter", "ssm:AddTagsToResource"],
                  Resource: parameterArn(iperf3StatusParameter),
                },
              ],
            },
          },
        ],
        Tags: tags,
      },
    },
    ServerInstanceProfile: {
      Type: "AWS::IAM::InstanceProfile",
      Properties: { Roles: [{ Ref: "ServerRole" }] },
    },
    [instanceId]: {
      Type: "AWS::EC2::Instance",
      Properties: {
        ImageId: { Ref: "ServerImageId" },
        InstanceType: server.instanceType,
        IamInstanceProfile: { Ref: "ServerInstanceProfile" },
        SecurityGroupIds: [{ "Fn::GetAtt": ["ServerSecurityGroup", "GroupId"] }],
        InstanceInitiatedShutdownBehavior: "terminate",
        MetadataOptions: { HttpTokens: "required", HttpEndpoint: "enabled" },
        UserData: { "Fn::Base64": { "Fn::Sub": serverUserData(server.ttlHours, server.ports) } },
        Tags: [...tags, { Key: "Name", Value: "lambda-netbench-iperf3" }],
      },
    },
  });
  template.Outputs.ServerPublicDnsName = { Value: { "Fn::GetAtt": [instanceId, "PublicDnsName"] } };
  template.Outputs.ServerPublicIp = { Value: { "Fn::GetAtt": [instanceId, "PublicIp"] } };
  template.Outputs.ServerInstanceId = { Value: { Ref: instanceId } };
  template.Outputs.ServerPorts = { Value: `${iperf3FirstPort}-${lastPort}` };
  template.Outputs.ServerGeneration = { Value: String(server.generation) };
  template.Outputs.ServerExpiresAt = { Value: server.expiresAt };
  template.Outputs.ServerInstanceType = { Value: server.instanceType };
}

/**
 * Boot script of the iperf3 server (a Fn::Sub string: `${AWS::Region}` is substituted by
 * CloudFormation; shell variables are written without braces). The time-to-live is armed
 * first, so the instance terminates itself even if the rest fails.
 */
export function serverUserData(ttlHours: number, ports: number): string {
  const ttlMinutes = Math.max(1, Math.round(ttlHours * 60));
  const lastPort = iperf3FirstPort + ports - 1;
  return `#!/bin/bash
set -euo pipefail
# time-to-live: halt, and InstanceInitiatedShutdownBehavior=terminate ends the instance
shutdown -h +${ttlMinutes}
dnf install -y iperf3
install -d -m 0750 -o root -g nobody /etc/lambda-netbench
umask 027
aws ssm get-parameter --region \${AWS::Region} --name ${iperf3PrivateKeyParameter} --with-decryption --query Parameter.Value --output text > /etc/lambda-netbench/iperf3-private.pem
PASSWORD=$(aws ssm get-parameter --region \${AWS::Region} --name ${iperf3PasswordParameter} --with-decryption --query Parameter.Value --output text)
HASH=$(printf '{%s}%s' '${iperf3Username}' "$PASSWORD" | sha256sum | cut -d' ' -f1)
unset PASSWORD
printf '%s,%s\\n' '${iperf3Username}' "$HASH" > /etc/lambda-netbench/iperf3-users.csv
chgrp nobody /etc/lambda-netbench/iperf3-private.pem /etc/lambda-netbench/iperf3-users.csv
# 3.17+ servers decrypt OAEP tokens; older ones only PKCS#1 v1.5: report which, for the client
if iperf3 --help 2>&1 | grep -q -- --use-pkcs1-padding; then PADDING=oaep; else PADDING=pkcs1; fi
VERSION=$(iperf3 --version | head -n1 | cut -d' ' -f2)
cat > /etc/systemd/system/lambda-netbench-iperf3@.service <<'UNIT'
[Unit]
Description=lambda-netbench iperf3 server on port %i (RSA authentication)
After=network-online.target
[Service]
User=nobody
Group=nobody
ExecStart=/usr/bin/iperf3 --server --port %i --rsa-private-key-path /etc/lambda-netbench/iperf3-private.pem --authorized-users-path /etc/lambda-netbench/iperf3-users.csv
Restart=always
RestartSec=1
[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
for PORT in $(seq ${iperf3FirstPort} ${lastPort}); do systemctl enable --now lambda-netbench-iperf3@$PORT.service; done
aws ssm put-parameter --region \${AWS::Region} --name ${iperf3StatusParameter} --type String --overwrite --value "{\\"version\\":\\"$VERSION\\",\\"padding\\":\\"$PADDING\\",\\"ports\\":\\"${iperf3FirstPort}-${lastPort}\\"}"
aws ssm add-tags-to-resource --region \${AWS::Region} --resource-type Parameter --resource-id ${iperf3StatusParameter} --tags Key=${tagKey},Value=${tagValue}
`;
}
