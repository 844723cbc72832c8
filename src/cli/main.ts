import type { Command } from "commander";
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
import { baseProgram } from "./entry.js";
import { parseArgv } from "./parse-argv.js";

/**
 * Every command at once, for tests and tools that drive the CLI in-process (the published binary
 * starts from entry.ts, which loads only the command it runs).
 */
export function buildProgram(runDeps?: RunCommandDeps): Command {
  const program = baseProgram();
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
  await parseArgv(buildProgram(), argv);
}
