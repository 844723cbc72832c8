import { DescribeSecurityGroupsCommand, DescribeSubnetsCommand, type EC2Client } from "@aws-sdk/client-ec2";
import type { Architecture } from "../../plan/architecture.js";
import { agentFunction, agentLogGroup, agentRole } from "./agent-function-resources.js";
import { AwsInputError } from "./aws-input.js";
import { errorName } from "./backoff.js";
import { functionName, tagKey, tagValue } from "./naming.js";

/**
 * The VPC variant of the agent: the same code attached to the user's subnets, beside the
 * non-VPC function. The bandwidth quota covers functions outside a VPC only, so a plan with
 * `vpc: [false, true]` measures what attaching to a VPC costs. Its own security group has no
 * ingress (nothing connects to a Lambda ENI); its own role adds the ENI permissions Lambda needs,
 * so the non-VPC function never gets them.
 */
export const vpcFunctionName = `${functionName}-vpc`;
export const vpcLogGroupName = `/aws/lambda/${vpcFunctionName}`;

/** What `deploy --vpc-subnets S1,S2 [--vpc-security-group SG]` asks for (checked, not yet looked up). */
export interface VpcRequest {
  subnetIds: string[];
  /** The user's security group for the function; null: the stack creates one with no ingress. */
  securityGroupId: string | null;
}

/** The request once its VPC is known (from the subnets). */
export interface VpcVariantOptions extends VpcRequest {
  vpcId: string;
}

const subnetPattern = /^subnet-[0-9a-f]{8,17}$/;
const securityGroupPattern = /^sg-[0-9a-f]{8,17}$/;
/** Lambda's limit on the subnets of one function's VpcConfig. */
export const maxVpcSubnets = 16;

/** Checks `--vpc-subnets S1,S2` and `--vpc-security-group SG` before any call; throws naming the option. */
export function parseVpcOptions(subnets: string | undefined, securityGroup: string | undefined): VpcRequest {
  if (subnets === undefined) {
    if (securityGroup !== undefined)
      throw new AwsInputError(
        "vpc-security-group",
        "needs --vpc-subnets (the subnets the VPC function is attached to)",
      );
    throw new AwsInputError("vpc-subnets", "at least one subnet id is required");
  }
  const subnetIds = subnets
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (subnetIds.length === 0 || subnetIds.length > maxVpcSubnets)
    throw new AwsInputError(
      "vpc-subnets",
      `1 to ${maxVpcSubnets} subnet ids, comma-separated (e.g. subnet-0abc12345678def01,subnet-0abc12345678def02); got ${subnetIds.length}`,
    );
  for (const id of subnetIds)
    if (!subnetPattern.test(id))
      throw new AwsInputError(
        "vpc-subnets",
        `"${id}" is not a subnet id (allowed: "subnet-" and 8 to 17 hex digits, e.g. subnet-0abc12345678def01)`,
      );
  if (new Set(subnetIds).size !== subnetIds.length)
    throw new AwsInputError("vpc-subnets", "each subnet at most once");
  const group = securityGroup?.trim();
  if (group !== undefined && !securityGroupPattern.test(group))
    throw new AwsInputError(
      "vpc-security-group",
      `"${securityGroup}" is not a security group id (allowed: "sg-" and 8 to 17 hex digits, e.g. sg-0abc12345678def01)`,
    );
  return { subnetIds, securityGroupId: group ?? null };
}

/**
 * Looks the request up in the account (reads only, before deploy changes anything): every subnet
 * exists here and all are in one VPC; the user's security group exists and is in that VPC.
 */
export async function resolveVpcVariant(
  ec2: EC2Client,
  request: VpcRequest,
  region: string,
): Promise<VpcVariantOptions> {
  let subnets: Array<{ SubnetId?: string; VpcId?: string }>;
  try {
    const response = await ec2.send(new DescribeSubnetsCommand({ SubnetIds: request.subnetIds }));
    subnets = response.Subnets ?? [];
  } catch (error) {
    // EC2 answers any unknown id in the list with InvalidSubnetID.NotFound and names it
    if (errorName(error) === "InvalidSubnetID.NotFound")
      throw new AwsInputError("vpc-subnets", `${(error as Error).message} (in ${region})`);
    throw error;
  }
  const missing = request.subnetIds.filter((id) => !subnets.some((s) => s.SubnetId === id));
  if (missing.length > 0)
    throw new AwsInputError("vpc-subnets", `not found in ${region}: ${missing.join(", ")}`);
  const vpcs = [...new Set(subnets.map((s) => s.VpcId ?? "?"))];
  if (vpcs.length !== 1)
    throw new AwsInputError(
      "vpc-subnets",
      `the subnets are in ${vpcs.length} VPCs (${subnets.map((s) => `${s.SubnetId} in ${s.VpcId}`).join(", ")}); a function attaches to one VPC`,
    );
  const vpcId = vpcs[0] as string;
  if (request.securityGroupId !== null) {
    let groupVpc: string | undefined;
    try {
      const response = await ec2.send(
        new DescribeSecurityGroupsCommand({ GroupIds: [request.securityGroupId] }),
      );
      groupVpc = response.SecurityGroups?.[0]?.VpcId;
    } catch (error) {
      if (errorName(error) === "InvalidGroup.NotFound" || errorName(error) === "InvalidGroupId.Malformed")
        throw new AwsInputError("vpc-security-group", `${(error as Error).message} (in ${region})`);
      throw error;
    }
    if (groupVpc !== vpcId)
      throw new AwsInputError(
        "vpc-security-group",
        `${request.securityGroupId} is in ${groupVpc ?? "no VPC"}, the subnets in ${vpcId}: use a group of ${vpcId}, or leave the option out (the stack then creates one with no ingress)`,
      );
  }
  return { ...request, vpcId };
}

/** The VPC function as the stack's outputs describe it, or null when the stack has none. */
export function vpcVariantFromOutputs(outputs: Record<string, string>): VpcVariantOptions | null {
  if (!outputs.VpcFunctionName || !outputs.VpcSubnetIds || !outputs.VpcId) return null;
  return {
    vpcId: outputs.VpcId,
    subnetIds: outputs.VpcSubnetIds.split(","),
    // a group the stack created is created again (same template), not passed in as the user's
    securityGroupId: outputs.VpcOwnSecurityGroup === "true" ? null : (outputs.VpcSecurityGroupId ?? null),
  };
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;
type Outputs = Record<string, { Value: unknown; Description?: string }>;

const ec2Arn = (resource: string) => ({
  "Fn::Sub": `arn:\${AWS::Partition}:ec2:\${AWS::Region}:\${AWS::AccountId}:${resource}`,
});

/** The VPC function, its role, log group and (unless given) security group. Pure. */
export function vpcAgentResources(
  vpc: VpcVariantOptions,
  agent: { arch: Architecture; memoryMb: number; timeoutSeconds: number; codeKey: string },
): Resources {
  const tags = [{ Key: tagKey, Value: tagValue }];
  const securityGroup =
    vpc.securityGroupId === null
      ? { "Fn::GetAtt": ["AgentVpcSecurityGroup", "GroupId"] }
      : vpc.securityGroupId;
  const securityGroupArn =
    vpc.securityGroupId === null
      ? {
          "Fn::Sub": `arn:\${AWS::Partition}:ec2:\${AWS::Region}:\${AWS::AccountId}:security-group/\${AgentVpcSecurityGroup.GroupId}`,
        }
      : ec2Arn(`security-group/${vpc.securityGroupId}`);
  const resources: Resources = {
    AgentVpcLogGroup: agentLogGroup(vpcLogGroupName),
    AgentVpcRole: agentRole({
      description: "lambda-netbench VPC agent: test objects, its own log group, and the ENIs Lambda attaches",
      policyName: "test-objects-logs-enis",
      logGroupId: "AgentVpcLogGroup",
      extraStatements: [
        {
          // The actions of AWS's AWSLambdaVPCAccessExecutionRole, split by how far each
          // can be scoped. Describe* takes only "*" (Lambda's guide says so for
          // DescribeNetworkInterfaces; DescribeSubnets has no resource type).
          Sid: "DescribeForEnis",
          Effect: "Allow",
          Action: ["ec2:DescribeNetworkInterfaces", "ec2:DescribeSubnets"],
          Resource: "*",
        },
        {
          // creating an ENI is authorized on the new interface, its subnet and its
          // security group: only these subnets and this group, in this account and region
          Sid: "CreateEnisInTheseSubnets",
          Effect: "Allow",
          Action: ["ec2:CreateNetworkInterface"],
          Resource: [
            ec2Arn("network-interface/*"),
            ...vpc.subnetIds.map((id) => ec2Arn(`subnet/${id}`)),
            securityGroupArn,
          ],
        },
        {
          // Lambda's guide: DeleteNetworkInterface needs every interface id of the
          // account (the ids are not known in advance); kept to this account and region
          Sid: "ManageEnis",
          Effect: "Allow",
          Action: [
            "ec2:DeleteNetworkInterface",
            "ec2:AssignPrivateIpAddresses",
            "ec2:UnassignPrivateIpAddresses",
          ],
          Resource: ec2Arn("network-interface/*"),
        },
      ],
    }),
  };
  if (vpc.securityGroupId === null) {
    resources.AgentVpcSecurityGroup = {
      Type: "AWS::EC2::SecurityGroup",
      Properties: {
        GroupDescription: "lambda-netbench VPC agent: no ingress; egress to S3 and the iperf3 server",
        VpcId: vpc.vpcId,
        // no SecurityGroupIngress: nothing connects to a Lambda ENI. Egress to any address:
        // S3's addresses (a prefix list) and the server's are both reached from here
        SecurityGroupEgress: [
          { IpProtocol: "-1", CidrIp: "0.0.0.0/0", Description: "S3 and the iperf3 server" },
        ],
        Tags: tags,
      },
    };
  }
  // the role's ENI permissions must exist before Lambda creates the interfaces, and stay
  // until CloudFormation has waited for Lambda to delete them
  resources.AgentVpcFunction = agentFunction({
    functionName: vpcFunctionName,
    description: "lambda-netbench agent attached to a VPC: runs one network probe per invocation",
    roleId: "AgentVpcRole",
    logGroupId: "AgentVpcLogGroup",
    dependsOn: ["AgentVpcLogGroup", "AgentVpcRole"],
    ...agent,
    extraProperties: { VpcConfig: { SubnetIds: vpc.subnetIds, SecurityGroupIds: [securityGroup] } },
  });
  return resources;
}

/** What the platform and the preflight read back: the function, its VPC, subnets and group. */
export function vpcAgentOutputs(vpc: VpcVariantOptions): Outputs {
  return {
    VpcFunctionName: { Value: { Ref: "AgentVpcFunction" }, Description: "the agent attached to the VPC" },
    VpcId: { Value: vpc.vpcId },
    VpcSubnetIds: { Value: vpc.subnetIds.join(",") },
    VpcSecurityGroupId: {
      Value:
        vpc.securityGroupId === null
          ? { "Fn::GetAtt": ["AgentVpcSecurityGroup", "GroupId"] }
          : vpc.securityGroupId,
    },
    VpcOwnSecurityGroup: {
      Value: vpc.securityGroupId === null ? "true" : "false",
      Description: "true: the stack created the group (no ingress)",
    },
  };
}
