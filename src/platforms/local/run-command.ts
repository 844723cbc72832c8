import { spawn } from "node:child_process";

/** A system command (ip, tc, openssl...) failed: says which one and what it printed. */
export class LabCommandError extends Error {
  constructor(
    readonly commandLine: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`lab: \`${commandLine}\` failed (exit ${exitCode ?? "signal"}): ${stderr.trim() || "(no output)"}`);
    this.name = "LabCommandError";
  }
}

export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion without a shell (arguments are never re-parsed) and returns
 * its output; throws LabCommandError on a non-zero exit unless `allowFailure`.
 */
export async function runCommand(
  file: string,
  args: string[],
  options: { allowFailure?: boolean; input?: string; timeoutSeconds?: number } = {},
): Promise<CommandResult> {
  const commandLine = [file, ...args].join(" ");
  const result = await new Promise<CommandResult>((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), (options.timeoutSeconds ?? 60) * 1000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new LabCommandError(commandLine, null, error.message));
    });
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
    child.stdin.on("error", () => undefined); // a command that exits without reading its input
    child.stdin.end(options.input ?? "");
  });
  if (result.exitCode !== 0 && options.allowFailure !== true) {
    throw new LabCommandError(commandLine, result.exitCode, result.stderr || result.stdout);
  }
  return result;
}
