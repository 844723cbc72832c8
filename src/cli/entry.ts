import { Command } from "commander";
import { toolVersion } from "../runner/tool-version.js";
import { parseArgv } from "./parse-argv.js";
import { quietSdkNodeNotice } from "./sdk-node-notice.js";

/**
 * The published binary's entry. It loads only the command it runs: loading them all brought in
 * vega, resvg and the AWS SDK clients before anything ran, and `--version` took 2-3 s. The
 * summaries below are what `lambda-netbench --help` lists; a test checks each against the
 * command's own description, so the two cannot drift.
 */
export const commandSummaries: Array<{
  name: string;
  summary: string;
  load: () => Promise<(program: Command) => void>;
}> = [
  {
    name: "probe",
    summary: "run one probe here and now",
    load: async () => (await import("./commands/probe.js")).registerProbeCommand,
  },
  {
    name: "iperf3-server",
    summary: "run an iperf3 server (TCP, one test at a time) that stock iperf3 clients can test against",
    load: async () => (await import("./commands/iperf3-server.js")).registerIperf3ServerCommand,
  },
  {
    name: "run",
    summary:
      "run a plan (default: the quick preset on the local lab) and write a run directory with its report",
    load: async () => {
      const { registerRunCommand } = await import("./commands/run.js");
      return (program) => registerRunCommand(program);
    },
  },
  {
    name: "report",
    summary: "print the summary of a run and write its report files",
    load: async () => (await import("./commands/report.js")).registerReportCommand,
  },
  {
    name: "compare",
    summary:
      "compare two runs side by side (e.g. before/after a quota increase, region vs region), or one run with a published baseline",
    load: async () => (await import("./commands/compare.js")).registerCompareCommand,
  },
  {
    name: "fit",
    summary:
      "fit the token bucket (sustained rate, bucket, peak) to iperf3 -J / --json-stream output or a CSV of samples measured elsewhere",
    load: async () => (await import("./commands/fit.js")).registerFitCommand,
  },
  {
    name: "lab",
    summary: "start, stop or inspect the local lab (needs root to shape)",
    load: async () => (await import("./commands/lab.js")).registerLabCommand,
  },
  {
    name: "quota",
    summary: "the Lambda network bandwidth quota (L-14320ECE, Mbit/s) per region",
    load: async () => (await import("./commands/quota.js")).registerQuotaCommand,
  },
  {
    name: "deploy",
    summary: "create or update the region's stack: bucket, agent function, optional iperf3 server",
    load: async () => (await import("./commands/deploy.js")).registerDeployCommand,
  },
  {
    name: "teardown",
    summary:
      "delete the region's stack, bucket contents, versions and secrets; verify nothing tagged remains",
    load: async () => (await import("./commands/teardown.js")).registerTeardownCommand,
  },
  {
    name: "schedule",
    summary: "studies that repeat in your account on a schedule (Step Functions + EventBridge Scheduler)",
    load: async () => (await import("./commands/schedule.js")).registerScheduleCommand,
  },
  {
    name: "runs",
    summary: "runs made in your account (scheduled studies)",
    load: async () => (await import("./commands/runs.js")).registerRunsCommand,
  },
];

/** The program's name, description and version: shared by the full program and this entry. */
export function baseProgram(): Command {
  return new Command()
    .name("lambda-netbench")
    .description("Measure the network bandwidth an AWS Lambda execution environment really gets.")
    .version(toolVersion())
    .showHelpAfterError()
    .exitOverride();
}

export async function main(argv: string[]): Promise<void> {
  quietSdkNodeNotice();
  const program = baseProgram();
  // `help NAME` shows that command's own help, so it loads NAME
  const name = argv[2] === "help" ? argv[3] : argv[2];
  const command = commandSummaries.find((c) => c.name === name);
  if (command) (await command.load())(program);
  // no command (or an unknown one): list them all, as help or in the usage error
  else for (const c of commandSummaries) program.command(c.name).description(c.summary);
  await parseArgv(program, argv);
}
