import type { Architecture } from "../../plan/architecture.js";
import {
  iperf3FirstPort,
  iperf3PasswordParameter,
  iperf3PrivateKeyParameter,
  iperf3StatusParameter,
  serverTagNames,
  tagKey,
  tagValue,
} from "./naming.js";
import { portRange, serverUserData } from "./server-user-data.js";

/** The iperf3 server's part of the stack: security group, role, instance profile, instance. */
export interface ServerTemplateOptions {
  instanceType: string;
  /** Number of iperf3 servers (ports 5201, 5202, ...): one test at a time per port. */
  ports: number;
  /** Bumped to replace the instance deliberately (expired, new type, new AMI). */
  generation: number;
  /** ISO time after which the instance terminates itself (an instance tag: updated in place). */
  expiresAt: string;
  /** iperf3 --idle-timeout: a stalled or aborted test frees the port after this long. */
  idleTimeoutSeconds: number;
  /** The AMI, resolved once by deploy and pinned (not re-resolved on every update). */
  imageId: string;
  /** Where the instance runs: the default VPC's subnet, or --subnet-id / --vpc-id. */
  vpcId: string;
  subnetId: string;
  /**
   * The organization's tags (the stack's, beside ours): on the instance itself too, so that its
   * root volume gets them at creation (PropagateTagsToVolumeOnCreation copies the instance's
   * Tags property, not the stack's tags).
   */
  organizationTags?: Array<{ Key: string; Value: string }>;
}

/** The server's instance metadata options (the template's, and the dry run's test launch). */
export const serverMetadataOptions = {
  HttpTokens: "required",
  HttpEndpoint: "enabled",
  HttpPutResponseHopLimit: 1,
  InstanceMetadataTags: "enabled",
} as const;

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;

/** Graviton families carry a "g" after the generation digit (c8gn, m7g, t4g): arm64 AMIs. */
export function instanceArchitecture(instanceType: string): Architecture {
  const family = instanceType.split(".")[0] ?? "";
  return /^[a-z]+\d+[a-z]*g[a-z]*$/.test(family) ? "arm64" : "x86_64";
}

/** AWS's public SSM parameter of the latest Amazon Linux 2023 AMI (read by deploy, not by the template). */
export function amiParameterName(arch: Architecture): string {
  return `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${arch}`;
}

export function serverLogicalId(generation: number): string {
  return `Iperf3Server${generation}`;
}

/** One launch template per generation: a new instance launches from a template of its own deploy. */
export function serverLaunchTemplateLogicalId(generation: number): string {
  return `Iperf3ServerLaunchTemplate${generation}`;
}

const parameterArn = (name: string) => ({
  "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${name}`,
});

/**
 * The server's instance role: Session Manager without AmazonSSMManagedInstanceCore (whose
 * ssm:GetParameter(s) on * would let this internet-facing host read every parameter of the
 * account), its own two secrets, and its own status parameter.
 */
function serverRolePolicy() {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "SessionManagerRegistration",
        Effect: "Allow",
        Action: "ssm:UpdateInstanceInformation",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub placeholder
        Resource: { "Fn::Sub": "arn:${AWS::Partition}:ec2:${AWS::Region}:${AWS::AccountId}:instance/*" },
      },
      {
        // these two services have no resource-level permissions: "*" is the only resource
        Sid: "SessionManagerChannels",
        Effect: "Allow",
        Action: [
          "ssmmessages:CreateControlChannel",
          "ssmmessages:CreateDataChannel",
          "ssmmessages:OpenControlChannel",
          "ssmmessages:OpenDataChannel",
          "ec2messages:AcknowledgeMessage",
          "ec2messages:DeleteMessage",
          "ec2messages:FailMessage",
          "ec2messages:GetEndpoint",
          "ec2messages:GetMessages",
          "ec2messages:SendReply",
        ],
        Resource: "*",
      },
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
  };
}

export function serverResources(server: ServerTemplateOptions): {
  resources: Resources;
  outputs: Record<string, { Value: unknown; Description?: string }>;
} {
  const tags = [{ Key: tagKey, Value: tagValue }];
  const lastPort = iperf3FirstPort + server.ports - 1;
  const instanceId = serverLogicalId(server.generation);
  const launchTemplateId = serverLaunchTemplateLogicalId(server.generation);
  // ours and the organization's: on the instance (and so its root volume), its network
  // interface and its launch template, each at creation
  const ownedTags = [
    ...tags,
    ...(server.organizationTags ?? []).filter(
      (tag) => tag.Key !== tagKey && tag.Key !== "Name" && !tag.Key.startsWith("aws:"),
    ),
  ];
  const name = { Key: "Name", Value: "lambda-netbench-iperf3" };
  const resources: Resources = {
    ServerSecurityGroup: {
      Type: "AWS::EC2::SecurityGroup",
      Properties: {
        // the same text for every port range: a changed GroupDescription replaces the group (and
        // with it the instance), while the ingress rule below is updated in place
        GroupDescription: "lambda-netbench iperf3 server: its iperf3 ports only (RSA-authenticated), no SSH",
        VpcId: server.vpcId,
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
        Description: "lambda-netbench iperf3 server: Session Manager, its own secrets, its status",
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [
            { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" },
          ],
        },
        Policies: [{ PolicyName: "session-manager-secrets-status", PolicyDocument: serverRolePolicy() }],
        Tags: tags,
      },
    },
    ServerInstanceProfile: {
      Type: "AWS::IAM::InstanceProfile",
      Properties: { Roles: [{ Ref: "ServerRole" }] },
    },
    // CloudFormation's instance tags only the instance (and, below, its root volume): the network
    // interface EC2 creates with it gets tags only from a launch template's TagSpecifications.
    // Everything else stays on the instance, so this template holds nothing but those tags
    [launchTemplateId]: {
      Type: "AWS::EC2::LaunchTemplate",
      Properties: {
        LaunchTemplateData: {
          TagSpecifications: [{ ResourceType: "network-interface", Tags: [...ownedTags, name] }],
        },
        // not taggable by the stack's tags: tagged as it is created, as the operator policy requires
        TagSpecifications: [{ ResourceType: "launch-template", Tags: ownedTags }],
      },
    },
    [instanceId]: {
      Type: "AWS::EC2::Instance",
      Properties: {
        ImageId: server.imageId,
        InstanceType: server.instanceType,
        // version 1, the one its generation created: a later change of the template (the
        // organization's tags) makes a version 2 and leaves the running instance alone, as
        // tags are applied at creation anyway; a new generation gets a new template
        LaunchTemplate: { LaunchTemplateId: { Ref: launchTemplateId }, Version: "1" },
        IamInstanceProfile: { Ref: "ServerInstanceProfile" },
        // a public address in the chosen subnet, whether or not the subnet assigns one itself
        NetworkInterfaces: [
          {
            DeviceIndex: "0",
            SubnetId: server.subnetId,
            AssociatePublicIpAddress: true,
            GroupSet: [{ "Fn::GetAtt": ["ServerSecurityGroup", "GroupId"] }],
            DeleteOnTermination: true,
          },
        ],
        InstanceInitiatedShutdownBehavior: "terminate",
        // tags readable from the instance: the watchdog's time-to-live, ports and idle timeout.
        // Hop limit 1: only the host itself asks IMDS (iperf3 and the watchdog run on it, no
        // container in between), and "hop limit 1" is a common organization rule (AL2023's AMIs
        // default to 2, for containers)
        MetadataOptions: serverMetadataOptions,
        // the root volume gets the instance's tags at creation (Tags below, the organization's included)
        PropagateTagsToVolumeOnCreation: true,
        UserData: { "Fn::Base64": { "Fn::Sub": serverUserData() } },
        Tags: [
          ...ownedTags,
          name,
          { Key: serverTagNames.expiresAt, Value: server.expiresAt },
          { Key: serverTagNames.ports, Value: portRange(server.ports) },
          { Key: serverTagNames.idleTimeoutSeconds, Value: String(server.idleTimeoutSeconds) },
        ],
      },
    },
  };
  const outputs = {
    ServerPublicDnsName: { Value: { "Fn::GetAtt": [instanceId, "PublicDnsName"] } },
    ServerPublicIp: { Value: { "Fn::GetAtt": [instanceId, "PublicIp"] } },
    // the VPC function reaches the server here when both are in one VPC (no NAT on the way)
    ServerPrivateIp: { Value: { "Fn::GetAtt": [instanceId, "PrivateIp"] } },
    ServerInstanceId: { Value: { Ref: instanceId } },
    ServerPorts: { Value: portRange(server.ports) },
    ServerGeneration: { Value: String(server.generation) },
    ServerExpiresAt: { Value: server.expiresAt },
    ServerInstanceType: { Value: server.instanceType },
    ServerImageId: { Value: server.imageId, Description: "the pinned AMI (deploy --update-ami to move on)" },
    ServerImageArch: { Value: instanceArchitecture(server.instanceType) },
    ServerSubnetId: { Value: server.subnetId },
    ServerVpcId: { Value: server.vpcId },
    ServerIdleTimeoutSeconds: { Value: String(server.idleTimeoutSeconds) },
  };
  return { resources, outputs };
}
