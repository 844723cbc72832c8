import {
  type CloudFormationClient,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  GetTemplateCommand,
  ListStacksCommand,
} from "@aws-sdk/client-cloudformation";
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ListSchedulesCommand,
  type SchedulerClient,
} from "@aws-sdk/client-scheduler";

/**
 * CloudFormation's part for AWS::Scheduler::Schedule, which moto only records as a placeholder:
 * for each schedule resource in a live stack, the schedule itself in moto's Scheduler API, with
 * the template's properties (its Ref, GetAtt and Sub resolved against the stack); and a schedule
 * of ours whose stack is gone is deleted, as CloudFormation would. Then `schedule list`,
 * `run-now` and `delete` meet a Scheduler that knows the schedule.
 */

const SCHEDULE_PREFIX = "lambda-netbench-";
type Json = unknown;

export async function syncPlaceholderSchedules(
  clients: { cloudFormation: CloudFormationClient; scheduler: SchedulerClient },
  accountId: string,
): Promise<void> {
  const wanted = new Map<string, Record<string, Json>>();
  const stacks = await clients.cloudFormation.send(
    new ListStacksCommand({ StackStatusFilter: ["CREATE_COMPLETE", "UPDATE_COMPLETE"] }),
  );
  for (const summary of stacks.StackSummaries ?? []) {
    const stackName = summary.StackName as string;
    if (!stackName.startsWith(SCHEDULE_PREFIX)) continue;
    const properties = await scheduleProperties(clients.cloudFormation, stackName, accountId).catch(
      (error: Error) => {
        // a nested stack deleted between the listing and this look is simply gone
        if (/does not exist/.test(error.message)) return [];
        throw error;
      },
    );
    for (const schedule of properties) wanted.set(schedule.Name as string, schedule);
  }
  const existing = new Set(
    (
      (await clients.scheduler.send(new ListSchedulesCommand({ NamePrefix: SCHEDULE_PREFIX }))).Schedules ??
      []
    ).map((s) => s.Name as string),
  );
  for (const [name, properties] of wanted)
    if (!existing.has(name))
      await clients.scheduler.send(
        new CreateScheduleCommand(
          properties as unknown as ConstructorParameters<typeof CreateScheduleCommand>[0],
        ),
      );
  for (const name of existing)
    if (!wanted.has(name)) await clients.scheduler.send(new DeleteScheduleCommand({ Name: name }));
}

/** The properties of each AWS::Scheduler::Schedule in a stack's template, resolved against the stack. */
async function scheduleProperties(
  cloudFormation: CloudFormationClient,
  stackName: string,
  accountId: string,
): Promise<Record<string, Json>[]> {
  const found: Record<string, Json>[] = [];
  const resources =
    (await cloudFormation.send(new DescribeStackResourcesCommand({ StackName: stackName }))).StackResources ??
    [];
  const template = JSON.parse(
    (await cloudFormation.send(new GetTemplateCommand({ StackName: stackName }))).TemplateBody ?? "{}",
  ) as { Resources?: Record<string, { Type: string; Properties: Record<string, Json> }> };
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
      return parameters[node.Ref as string] ?? physical[node.Ref as string]?.PhysicalResourceId;
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
    if (resource.Type === "AWS::Scheduler::Schedule") {
      const properties = resolve(resource.Properties) as Record<string, Json>;
      found.push(properties);
    }
  return found;
}
