import type { Command } from "commander";
import type { AwsCommandDeps } from "./commands/aws-session.js";
import { registerCompareCommand } from "./commands/compare.js";
import { registerDeployCommand } from "./commands/deploy.js";
import { registerFitCommand } from "./commands/fit.js";
import { registerIperf3ServerCommand } from "./commands/iperf3-server.js";
import { registerLabCommand } from "./commands/lab.js";
import { registerProbeCommand } from "./commands/probe.js";
import { registerQuotaCommand } from "./commands/quota.js";
import { registerReportCommand } from "./commands/report.js";
import { defaultRunDeps, type RunCommandDeps, registerRunCommand } from "./commands/run.js";
import { registerRunsCommand } from "./commands/runs.js";
import { registerScheduleCommand } from "./commands/schedule.js";
import { registerTeardownCommand } from "./commands/teardown.js";
import { baseProgram } from "./entry.js";
import { parseArgv } from "./parse-argv.js";

/** What a test or tool driving the CLI in-process replaces; each left out is the real one. */
export interface ProgramDeps {
  /** How `run` opens each target's platform. */
  run?: Omit<RunCommandDeps, "aws">;
  /** The AWS commands' (and `run`'s preflight's) transport, credentials and waits. */
  aws?: AwsCommandDeps;
}

/**
 * Every command at once, for tests and tools that drive the CLI in-process (the published binary
 * starts from entry.ts, which loads only the command it runs).
 */
export function buildProgram(deps: ProgramDeps = {}): Command {
  const aws = deps.aws ?? {};
  const program = baseProgram();
  registerProbeCommand(program);
  registerIperf3ServerCommand(program);
  registerRunCommand(program, { ...(deps.run ?? defaultRunDeps), aws });
  registerReportCommand(program);
  registerCompareCommand(program);
  registerFitCommand(program);
  registerLabCommand(program);
  registerQuotaCommand(program, aws);
  registerDeployCommand(program, aws);
  registerTeardownCommand(program, aws);
  registerScheduleCommand(program, aws);
  registerRunsCommand(program, aws);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await parseArgv(buildProgram(), argv);
}
