import {
  type CloudFormationClient,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  GetTemplateCommand,
  ListStacksCommand,
} from "@aws-sdk/client-cloudformation";
import {
  CreateScheduleCommand,
  CreateScheduleGroupCommand,
  DeleteScheduleCommand,
  DeleteScheduleGroupCommand,
  ListScheduleGroupsCommand,
  ListSchedulesCommand,
  type SchedulerClient,
} from "@aws-sdk/client-scheduler";

/**
 * CloudFormation's part for AWS::Scheduler::ScheduleGroup and AWS::Scheduler::Schedule, which
 * moto only records as placeholders: for each in a live stack, the group (with its tags) and the
 * schedule in it, in moto's Scheduler API, with the template's properties (Ref, GetAtt and Sub
 * resolved against the stack); a schedule or group of ours whose stack is gone is deleted, as
 * CloudFormation would. Then `schedule list`, `run-now`, `delete` and teardown meet a Scheduler
 * that knows the schedule where AWS would have it: in its own group.
 */

const SCHEDULE_PREFIX = "lambda-netbench-";
type Json = unknown;
type Properties = Record<string, Json>;
type CreateSchedule = ConstructorParameters<typeof CreateScheduleCommand>[0];
type CreateGroup = ConstructorParameters<typeof CreateScheduleGroupCommand>[0];

/** A schedule's key: its group and name (names are unique only within a group). */
const scheduleKey = (group: string | undefined, name: string | undefined) =>
  `${group ?? "default"}/${name ?? ""}`;

export async function syncPlaceholderSchedules(
  clients: { cloudFormation: CloudFormationClient; scheduler: SchedulerClient },
  accountId: string,
): Promise<void> {
  const wantedGroups = new Map<string, Properties>();
  const wantedSchedules = new Map<string, Properties>();
  const stacks = await clients.cloudFormation.send(
    new ListStacksCommand({ StackStatusFilter: ["CREATE_COMPLETE", "UPDATE_COMPLETE"] }),
  );
  for (const summary of stacks.StackSummaries ?? []) {
    const stackName = summary.StackName as string;
    if (!stackName.startsWith(SCHEDULE_PREFIX)) continue;
    const resources = await schedulerResources(clients.cloudFormation, stackName, accountId).catch(
      (error: Error) => {
        // a nested stack deleted between the listing and this look is simply gone
        if (/does not exist/.test(error.message)) return { groups: [], schedules: [] };
        throw error;
      },
    );
    for (const group of resources.groups) wantedGroups.set(group.Name as string, group);
    for (const schedule of resources.schedules)
      wantedSchedules.set(scheduleKey(schedule.GroupName as string, schedule.Name as string), schedule);
  }
  const scheduler = clients.scheduler;
  const existingGroups = new Set(
    (
      (await scheduler.send(new ListScheduleGroupsCommand({ NamePrefix: SCHEDULE_PREFIX }))).ScheduleGroups ??
      []
    ).map((g) => g.Name as string),
  );
  const existingSchedules = new Map(
    ((await scheduler.send(new ListSchedulesCommand({ NamePrefix: SCHEDULE_PREFIX }))).Schedules ?? []).map(
      (s) => [scheduleKey(s.GroupName, s.Name), s] as const,
    ),
  );
  for (const [name, group] of wantedGroups)
    if (!existingGroups.has(name))
      await scheduler.send(new CreateScheduleGroupCommand(group as unknown as CreateGroup));
  for (const [key, schedule] of wantedSchedules)
    if (!existingSchedules.has(key))
      await scheduler.send(new CreateScheduleCommand(schedule as unknown as CreateSchedule));
  for (const [key, schedule] of existingSchedules)
    if (!wantedSchedules.has(key))
      await scheduler.send(new DeleteScheduleCommand({ Name: schedule.Name, GroupName: schedule.GroupName }));
  for (const name of existingGroups)
    if (!wantedGroups.has(name)) await scheduler.send(new DeleteScheduleGroupCommand({ Name: name }));
}

/**
 * The properties of each AWS::Scheduler::ScheduleGroup and AWS::Scheduler::Schedule in a stack's
 * template, resolved against the stack.
 */
async function schedulerResources(
  cloudFormation: CloudFormationClient,
  stackName: string,
  accountId: string,
): Promise<{ groups: Properties[]; schedules: Properties[] }> {
  const found = { groups: [] as Properties[], schedules: [] as Properties[] };
  const resources =
    (await cloudFormation.send(new DescribeStackResourcesCommand({ StackName: stackName }))).StackResources ??
    [];
  const template = JSON.parse(
    (await cloudFormation.send(new GetTemplateCommand({ StackName: stackName }))).TemplateBody ?? "{}",
  ) as { Resources?: Record<string, { Type: string; Properties: Properties }> };
  const parameters = Object.fromEntries(
    (
      (await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0]
        ?.Parameters ?? []
    ).map((p) => [p.ParameterKey, p.ParameterValue]),
  );
  const physical = Object.fromEntries(resources.map((r) => [r.LogicalResourceId, r]));
  const resolve = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== "object" || value === null) return value;
    const node = value as Record<string, Json>;
    if ("Ref" in node)
      return (
        parameters[node.Ref as string] ??
        physical[node.Ref as string]?.PhysicalResourceId ??
        // moto lists no placeholder resource: a group's Ref is its name, as CloudFormation gives it
        template.Resources?.[node.Ref as string]?.Properties.Name
      );
    if ("Fn::GetAtt" in node) {
      const [logical, attribute] = node["Fn::GetAtt"] as [string, string];
      const resource = physical[logical];
      if (attribute === "Arn" && resource?.ResourceType === "AWS::IAM::Role")
        return `arn:aws:iam::${accountId}:role/${resource.PhysicalResourceId}`;
      return resource?.PhysicalResourceId;
    }
    if ("Fn::Sub" in node)
      return String(node["Fn::Sub"]).replace(/\$\{([^}]+)\}/g, (_, name: string) =>
        String(parameters[name] ?? physical[name]?.PhysicalResourceId ?? ""),
      );
    return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, resolve(inner)]));
  };
  for (const resource of Object.values(template.Resources ?? {}))
    if (resource.Type === "AWS::Scheduler::ScheduleGroup")
      found.groups.push(resolve(resource.Properties) as Properties);
    else if (resource.Type === "AWS::Scheduler::Schedule")
      found.schedules.push(resolve(resource.Properties) as Properties);
  return found;
}
