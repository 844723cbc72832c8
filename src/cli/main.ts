import { Command } from "commander";
import { AwsInputError } from "../platforms/aws/aws-input.js";
import { registerCompareCommand } from "./commands/compare.js";
import { registerDeployCommand } from "./commands/deploy.js";
import { registerIperf3ServerCommand } from "./commands/iperf3-server.js";
import { registerLabCommand } from "./commands/lab.js";
import { registerProbeCommand } from "./commands/probe.js";
import { registerQuotaCommand } from "./commands/quota.js";
import { registerReportCommand } from "./commands/report.js";
import { type RunCommandDeps, registerRunCommand } from "./commands/run.js";
import { registerRunsCommand } from "./commands/runs.js";
import { registerScheduleCommand } from "./commands/schedule.js";
import { registerTeardownCommand } from "./commands/teardown.js";

export function buildProgram(runDeps?: RunCommandDeps): Command {
  const program = new Command()
    .name("lambda-netbench")
    .description("Measure the network bandwidth an AWS Lambda execution environment really gets.")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  registerProbeCommand(program);
  registerIperf3ServerCommand(program);
  registerRunCommand(program, runDeps);
  registerReportCommand(program);
  registerCompareCommand(program);
  registerLabCommand(program);
  registerQuotaCommand(program);
  registerDeployCommand(program);
  registerTeardownCommand(program);
  registerScheduleCommand(program);
  registerRunsCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // commander already printed help/version/usage errors itself
    if (code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help")
      return;
    if (typeof code === "string" && code.startsWith("commander.")) {
      process.exitCode = 2;
      return;
    }
    // bad input (a flag's value: which field, what is allowed) exits 2, like the plan's errors
    if (error instanceof AwsInputError) {
      console.error(`lambda-netbench: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
