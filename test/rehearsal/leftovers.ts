import { CloudFormationClient, ListStacksCommand } from "@aws-sdk/client-cloudformation";
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs";
import { DescribeInstancesCommand, DescribeSecurityGroupsCommand, EC2Client } from "@aws-sdk/client-ec2";
import { IAMClient, ListInstanceProfilesCommand, ListRolesCommand } from "@aws-sdk/client-iam";
import { LambdaClient, ListFunctionsCommand } from "@aws-sdk/client-lambda";
import {
  GetResourcesCommand,
  ResourceGroupsTaggingAPIClient,
} from "@aws-sdk/client-resource-groups-tagging-api";
import { ListBucketsCommand, S3Client } from "@aws-sdk/client-s3";
import { ListScheduleGroupsCommand, ListSchedulesCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { ListStateMachinesCommand, SFNClient } from "@aws-sdk/client-sfn";
import { GetParametersByPathCommand, SSMClient } from "@aws-sdk/client-ssm";
import { REHEARSAL_CREDENTIALS } from "./rehearsal-credentials.js";

/**
 * Everything of ours still in the account, asked of moto directly, service by service, the way
 * an engineer checks after a teardown: stacks, functions, buckets, instances not terminated,
 * security groups, parameters, roles, instance profiles, log groups, state machines,
 * schedules and their groups, and anything tagged. Empty when teardown left nothing behind.
 */
export async function findLeftovers(motoUrl: string, region: string): Promise<string[]> {
  const common = { region, endpoint: motoUrl, credentials: REHEARSAL_CREDENTIALS };
  const ours = (name: string | undefined) => (name ?? "").includes("lambda-netbench");
  const found: string[] = [];
  const stacks = await new CloudFormationClient(common).send(new ListStacksCommand({}));
  for (const s of stacks.StackSummaries ?? [])
    if (ours(s.StackName) && s.StackStatus !== "DELETE_COMPLETE")
      found.push(`stack ${s.StackName} ${s.StackStatus}`);
  const functions = await new LambdaClient(common).send(new ListFunctionsCommand({}));
  for (const f of functions.Functions ?? [])
    if (ours(f.FunctionName)) found.push(`function ${f.FunctionName}`);
  const buckets = await new S3Client({ ...common, forcePathStyle: true }).send(new ListBucketsCommand({}));
  for (const b of buckets.Buckets ?? []) if (ours(b.Name)) found.push(`bucket ${b.Name}`);
  const ec2 = new EC2Client(common);
  const instances = await ec2.send(new DescribeInstancesCommand({}));
  for (const instance of (instances.Reservations ?? []).flatMap((r) => r.Instances ?? []))
    if (instance.Tags?.some((tag) => ours(tag.Key)) && instance.State?.Name !== "terminated")
      found.push(`instance ${instance.InstanceId} ${instance.State?.Name}`);
  const groups = await ec2.send(new DescribeSecurityGroupsCommand({}));
  for (const g of groups.SecurityGroups ?? [])
    if (ours(g.GroupName) || g.Tags?.some((tag) => ours(tag.Key)))
      found.push(`security group ${g.GroupId} ${g.GroupName}`);
  const parameters = await new SSMClient(common).send(
    new GetParametersByPathCommand({ Path: "/lambda-netbench/", Recursive: true }),
  );
  for (const p of parameters.Parameters ?? []) found.push(`parameter ${p.Name}`);
  const iam = new IAMClient(common);
  for (const role of (await iam.send(new ListRolesCommand({}))).Roles ?? [])
    if (ours(role.RoleName)) found.push(`role ${role.RoleName}`);
  for (const profile of (await iam.send(new ListInstanceProfilesCommand({}))).InstanceProfiles ?? [])
    if (ours(profile.InstanceProfileName)) found.push(`instance profile ${profile.InstanceProfileName}`);
  const logs = await new CloudWatchLogsClient(common).send(new DescribeLogGroupsCommand({}));
  for (const group of logs.logGroups ?? [])
    if (ours(group.logGroupName)) found.push(`log group ${group.logGroupName}`);
  const machines = await new SFNClient(common).send(new ListStateMachinesCommand({}));
  for (const m of machines.stateMachines ?? []) if (ours(m.name)) found.push(`state machine ${m.name}`);
  const scheduler = new SchedulerClient(common);
  const schedules = await scheduler.send(new ListSchedulesCommand({}));
  for (const s of schedules.Schedules ?? [])
    if (ours(s.Name)) found.push(`schedule ${s.GroupName}/${s.Name}`);
  const scheduleGroups = await scheduler.send(new ListScheduleGroupsCommand({}));
  for (const g of scheduleGroups.ScheduleGroups ?? [])
    if (ours(g.Name)) found.push(`schedule group ${g.Name}`);
  const tagged = await new ResourceGroupsTaggingAPIClient(common).send(
    new GetResourcesCommand({ TagFilters: [{ Key: "lambda-netbench" }] }),
  );
  for (const r of tagged.ResourceTagMappingList ?? [])
    if (!r.ResourceARN?.includes(":instance/")) found.push(`tagged ${r.ResourceARN}`);
  return found;
}
