import type { Command } from "commander";
import { loadPlan } from "../../plan/load-plan.js";
import { commandRegion, withAwsRegion, withProfile } from "./aws-options.js";
import type { AwsCommandDeps } from "./aws-session.js";
import { scheduledLambdaCost, withClients } from "./schedule-session.js";

interface CreateCliOptions {
  region?: string;
  profile?: string;
  preset?: string;
  config?: string;
  every: string;
  name?: string;
  timezone: string;
  parallelism?: string;
  printTemplate?: boolean;
  dryRun?: boolean;
}

/** Without `parallelism` in the plan: as many at once as `run` allows on AWS by default. */
const defaultScheduledParallelism = 10;

/**
 * `lambda-netbench schedule create|list|delete|run-now`: studies that repeat in the account
 * on an EventBridge schedule, run by a Step Functions state machine (docs/aws.md, Scheduled
 * studies). The AWS modules load only when a subcommand runs.
 */
export function registerScheduleCommand(program: Command, deps: AwsCommandDeps = {}): void {
  const schedule = program
    .command("schedule")
    .description(
      "studies that repeat in your account on a schedule (Step Functions + EventBridge Scheduler)",
    );

  withAwsRegion(
    schedule.command("create"),
    "AWS region, e.g. us-west-2 (the plan's targets become this region)",
  )
    .description("create or update a schedule in the region's stack")
    .option("--preset <name>", "built-in plan: quick, seed or full")
    .option("--config <file>", "plan file (YAML or JSON)")
    .requiredOption(
      "--every <expression>",
      'how often: "rate(1 day)", "rate(12 hours)" or "cron(0 6 * * ? *)"',
    )
    .option("--name <name>", "schedule name (default: the plan's name)")
    .option("--timezone <zone>", "IANA time zone of a cron expression", "UTC")
    .option("--parallelism <n>", "invocations at once (default: the plan's parallelism, else 10)")
    .option("--print-template", "print the schedule's CloudFormation template and exit (no AWS call)")
    .option(
      "--dry-run",
      "check the account (preflight), print what would be created and the calls create would make; create nothing",
    )
    .action(async (options: CreateCliOptions) => {
      process.exitCode = await createCommand(options, deps);
    });

  withAwsRegion(schedule.command("list"))
    .description("the region's schedules with their last execution")
    .action(async (options: { region?: string; profile?: string }) => {
      await withClients(options.region, withProfile(deps, options.profile), async (clients) => {
        const { listSchedules } = await import("../../scheduled-studies/schedule-admin.js");
        const schedules = await listSchedules(clients);
        if (schedules.length === 0) {
          console.log(`no schedules in ${clients.region}`);
          return;
        }
        for (const entry of schedules) {
          const last = entry.lastExecution
            ? `last ${entry.lastExecution.status} ${entry.lastExecution.startedAt}`
            : "never run";
          console.log(
            `${entry.name}  ${entry.expression}${entry.timezone && entry.timezone !== "UTC" ? ` (${entry.timezone})` : ""}  ${entry.state}  ${last}`,
          );
        }
      });
    });

  withAwsRegion(schedule.command("delete"))
    .description(
      "remove a schedule (its state machine, roles, aliases and plan); its runs stay in the bucket",
    )
    .requiredOption("--name <name>", "schedule name")
    .action(async (options: { region?: string; profile?: string; name: string }) => {
      const name = await validName(options.name);
      await withClients(options.region, withProfile(deps, options.profile), async (clients) => {
        const { deleteSchedule } = await import("../../scheduled-studies/schedule-admin.js");
        const result = await deleteSchedule(clients, name, {
          ...(deps.pacing ? { stackPoll: deps.pacing.stackPoll } : {}),
          log: (line) => console.error(line),
        });
        console.log(
          `schedule ${name} in ${clients.region}: deleted (${result.aliases} alias(es), ${result.objects} plan object(s)); runs stay under s3://…/runs/ until teardown`,
        );
      });
    });

  withAwsRegion(schedule.command("run-now"))
    .description("start one execution of a schedule now")
    .requiredOption("--name <name>", "schedule name")
    .action(async (options: { region?: string; profile?: string; name: string }) => {
      const name = await validName(options.name);
      await withClients(options.region, withProfile(deps, options.profile), async (clients) => {
        const { runScheduleNow } = await import("../../scheduled-studies/schedule-admin.js");
        const started = await runScheduleNow(clients, name);
        console.log(`started ${started.executionArn} at ${started.startedAt}`);
        console.log(`then: lambda-netbench runs pull --region ${clients.region}`);
      });
    });
}

async function validName(name: string): Promise<string> {
  const { validateScheduleName } = await import("../../scheduled-studies/schedule-naming.js");
  return validateScheduleName(name);
}

export async function createCommand(options: CreateCliOptions, commandDeps: AwsCommandDeps): Promise<number> {
  const deps = withProfile(commandDeps, options.profile);
  // every check before any AWS call
  const [{ validateNumberInRange }, { parseScheduleExpression }, naming, { planSchedule }] =
    await Promise.all([
      import("../../platforms/aws/aws-input.js"),
      import("../../scheduled-studies/schedule-expression.js"),
      import("../../scheduled-studies/schedule-naming.js"),
      import("../../scheduled-studies/schedule-plan.js"),
    ]);
  const region = await commandRegion(options.region, deps.profile);
  const expression = parseScheduleExpression(options.every);
  const timezone = validateTimezone(options.timezone);
  const plan = await loadPlan({
    ...(options.preset ? { preset: options.preset } : {}),
    ...(options.config ? { configPath: options.config } : {}),
    regions: [region],
  });
  // scheduled runs invoke the agent's own aliases only: a VPC cell would run outside the VPC
  if (plan.vpc.includes(true))
    throw new Error(
      "vpc: scheduled runs have no VPC variant (they invoke the agent outside a VPC); run plans with `vpc: [false, true]` with `lambda-netbench run`",
    );
  const name = naming.validateScheduleName(options.name ?? naming.defaultScheduleName(plan.name));
  const parallelism =
    options.parallelism !== undefined
      ? validateNumberInRange(options.parallelism, "parallelism", 1, 1_000, true)
      : (plan.parallelism ?? defaultScheduledParallelism);
  const source = {
    preset: options.config ? null : (options.preset ?? "quick"),
    configPath: options.config ?? null,
    regions: [region],
  };

  if (options.printTemplate) {
    const [{ buildScheduleTemplate }] = await Promise.all([
      import("../../scheduled-studies/schedule-template.js"),
    ]);
    const { templateOptions } = planSchedule({
      name,
      expression: expression.text,
      timezone,
      plan,
      parallelism,
      agentTimeoutSeconds: 900,
    });
    console.log(JSON.stringify(buildScheduleTemplate(templateOptions), null, 2));
    return 0;
  }

  if (options.dryRun) {
    const { scheduleDryRun } = await import("./schedule-dry-run.js");
    return scheduleDryRun(
      { region, name, expression: expression.text, timezone, plan, source, parallelism },
      deps,
    );
  }

  const { buildRecorderZip } = await import("../../scheduled-studies/recorder-zip.js");
  const recorder = buildRecorderZip();
  const { createSchedule } = await import("../../scheduled-studies/schedule-create.js");
  await withClients(region, deps, async (clients) => {
    const result = await createSchedule(clients, {
      name,
      expression: expression.text,
      timezone,
      plan,
      source,
      parallelism,
      recorder,
      ...(deps.pacing ? { stackPoll: deps.pacing.stackPoll, waiter: deps.pacing.waiter } : {}),
      log: (line) => console.error(line),
    });
    console.log(`schedule ${result.name} in ${region}: ${result.action}`);
    console.log(`  every          ${expression.text}${timezone !== "UTC" ? ` (${timezone})` : ""}`);
    console.log(`  state machine  ${result.stateMachineName} (${result.mode} Map, ${parallelism} at once)`);
    console.log(
      `  per run        ${result.warmups} warm-up(s) + ${result.tasks} invocation(s)${result.skipped > 0 ? `, ${result.skipped} iperf3 task(s) recorded as skipped (no server between runs)` : ""}`,
    );
    const lambda = scheduledLambdaCost(plan);
    console.log(
      `  cost per run   Lambda ~$${lambda.usd.toFixed(4)} (${lambda.invocations} invocations, ${lambda.gigabyteSeconds.toFixed(0)} GB-s, upper estimate); Step Functions ${result.stateTransitionsPerRun} state transitions (prices: docs/aws.md, Scheduled studies)`,
    );
    console.log(
      `  results        s3://${result.bucket}/runs/<run id>/ -> lambda-netbench runs pull --region ${region}`,
    );
  });
  return 0;
}

function validateTimezone(zone: string): string {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    throw new Error(
      `timezone: "${zone}" is not an IANA time zone (allowed: e.g. UTC, Europe/Berlin, America/New_York)`,
    );
  }
}
