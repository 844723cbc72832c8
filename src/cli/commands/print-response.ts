import type { AgentResponse } from "../../agent/agent-response.js";

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
