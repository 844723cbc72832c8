import type { Command } from "commander";
import type { AgentResponse } from "../../agent/agent-response.js";
import { handleEvent } from "../../agent/handler.js";
import { registerS3ProbeCommands } from "./probe-s3.js";

/**
 * `lambda-netbench probe KIND [options]`: one probe, here, now, through the same code the
 * agent runs (handleEvent), so the CLI and a Lambda invocation validate and measure alike.
 */
export function registerProbeCommand(program: Command): void {
  const probe = program.command("probe").description("run one probe here and now");
  probe
    .command("info")
    .description("describe this execution environment (memory, arch, vCPUs, CPU model, kernel, runtime)")
    .option("--json", "print the result as JSON")
    .action(async (options: { json?: boolean }) => {
      printResponse(await handleEvent({ probe: "info" }), options.json === true);
    });
  registerS3ProbeCommands(probe);
}

/** Prints a probe response; a failed probe sets a non-zero exit code with its error kind. */
export function printResponse(
  response: AgentResponse,
  json: boolean,
  human?: (r: AgentResponse) => string,
): void {
  if (!response.ok) {
    if (json) console.log(JSON.stringify(response, null, 2));
    console.error(
      `lambda-netbench: ${response.probe ?? "probe"} failed (${response.error.kind}): ${response.error.message}`,
    );
    process.exitCode = 1;
    return;
  }
  if (json) console.log(JSON.stringify(response.detail, null, 2));
  else console.log(human ? human(response) : JSON.stringify(response.detail, null, 2));
}
