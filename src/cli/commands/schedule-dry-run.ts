import { textTable } from "../../report/tables.js";
import { outputWidth, wrapEach } from "../../report/text-layout.js";
import type { CreateScheduleOptions } from "../../scheduled-studies/schedule-create.js";
import type { AwsCommandDeps } from "./aws-session.js";
import { scheduledLambdaCost, withClients } from "./schedule-session.js";

/**
 * `schedule create --dry-run`: what create would make, the account's preflight, and the calls
 * create would make, with every call that changes something held back by the planned-call
 * recorder (reads are sent, so the listing reflects the account). Creates nothing.
 */
export type ScheduleDryRunOptions = Pick<
  CreateScheduleOptions,
  "name" | "expression" | "timezone" | "plan" | "source" | "parallelism"
> & {
  region: string;
  write?: (text: string) => void;
};

export async function scheduleDryRun(options: ScheduleDryRunOptions, deps: AwsCommandDeps): Promise<number> {
  const write = options.write ?? ((text: string) => console.log(text));
  const [
    { planSchedule },
    { createSchedule },
    { buildScheduleTemplate },
    naming,
    { nestedStackLogicalId },
    { runPreflight, formatPreflight },
  ] = await Promise.all([
    import("../../scheduled-studies/schedule-plan.js"),
    import("../../scheduled-studies/schedule-create.js"),
    import("../../scheduled-studies/schedule-template.js"),
    import("../../scheduled-studies/schedule-naming.js"),
    import("../../platforms/aws/nested-stacks.js"),
    import("../../platforms/aws/preflight.js"),
  ]);
  const { templateOptions, variants } = planSchedule({
    name: options.name,
    expression: options.expression,
    timezone: options.timezone,
    plan: options.plan,
    parallelism: options.parallelism,
    agentTimeoutSeconds: 900,
  });
  const template = buildScheduleTemplate(templateOptions);
  const lambda = scheduledLambdaCost(options.plan);
  const keys = naming.scheduleKeys(options.name);
  const width = outputWidth();
  const resources = textTable(
    ["", "", ""],
    Object.entries(template.Resources).map(([id, resource]) => [id, resource.Type, physicalName(resource)]),
    { header: false, indent: "    ", width },
  );
  const lines = [
    `Dry run: schedule ${options.name} in ${options.region} would create`,
    `  nested stack ${nestedStackLogicalId(options.name)} of lambda-netbench, with:`,
  ];
  const after = [
    `  every ${options.expression}${options.timezone !== "UTC" ? ` (${options.timezone})` : ""}; ${templateOptions.mode} Map, ${options.parallelism} at once`,
    `  aliases of lambda-netbench-agent: ${variants.map((v) => naming.scheduleAliasName(options.name, v.memoryMb, v.arch)).join(", ")} (one published version each)`,
    `  objects in the bucket: ${keys.execution}, ${keys.tasks}, ${keys.prefix}template-<sha>.json, agent/recorder-<sha>.zip`,
    `  per run: ${lambda.invocations} Lambda invocations, ~$${lambda.usd.toFixed(4)} of Lambda (upper estimate; iperf3 cells are recorded as skipped)`,
  ];
  write([...wrapEach(lines, width), ...resources, ...wrapEach(after, width)].join("\n"));

  const { buildAgentZip } = await import("../../platforms/aws/agent-zip.js");
  const result = await runPreflight({
    // a schedule keeps no iperf3 server; the Map's MaxConcurrency is the parallelism checked
    regions: [{ region: options.region, needsServer: false, durationSeconds: 0, startsInSeconds: 0 }],
    parallelism: options.parallelism,
    expectedAgentCodeKey: () => {
      try {
        return buildAgentZip().key;
      } catch {
        return null;
      }
    },
    credentials: deps.credentials,
    requestHandler: deps.requestHandler,
    ...(deps.profile ? { profile: deps.profile } : {}),
  });
  write(formatPreflight(result, width));
  if (!result.ok) {
    write("Dry run: nothing was created; fix the failed checks, then run it again.");
    return 1;
  }
  const { buildRecorderZip } = await import("../../scheduled-studies/recorder-zip.js");
  await withClients(
    options.region,
    deps,
    async (clients) => {
      await createSchedule(clients, {
        name: options.name,
        expression: options.expression,
        timezone: options.timezone,
        plan: options.plan,
        source: options.source,
        parallelism: options.parallelism,
        recorder: buildRecorderZip(),
        log: (line) => console.error(line),
      });
    },
    true,
  );
  write("Dry run: nothing was created or changed.");
  return 0;
}

/** The name a resource will have: its own name property, or CloudFormation's generated one. */
function physicalName(resource: { Type: string; Properties?: Record<string, unknown> }): string {
  const properties = resource.Properties ?? {};
  for (const key of ["FunctionName", "StateMachineName", "Name", "LogGroupName"])
    if (typeof properties[key] === "string") return properties[key] as string;
  return "(named by CloudFormation: lambda-netbench-Schedule...)";
}
