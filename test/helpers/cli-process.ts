import { execFile } from "node:child_process";

/**
 * argv (after `process.execPath`) that runs the lambda-netbench CLI from source through tsx
 * (test/helpers/run-cli.ts), so CLI tests need no build. Paths are relative to the repo root,
 * the directory tests run from.
 */
export function cliArgv(args: string[]): string[] {
  return ["--import", "tsx", "test/helpers/run-cli.ts", ...args];
}

/** A finished CLI child: its exit code (1 when it was killed, timed out or never started). */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
  /** The child's pid: a private lab it opened is lnblabp<pid> (privateLabName(pid)). */
  pid: number | undefined;
}

/**
 * The CLI from source as a child process, run to its end. With `privateLab` every lab target is
 * opened on a private lab of the child (test/helpers/run-cli-private-lab.ts), so the shared lab
 * others use is never touched; the caller removes it (removeLab(privateLabName(pid))) however the
 * child ended.
 */
export function runCli(
  args: string[],
  options: { timeoutMs?: number; privateLab?: boolean } = {},
): Promise<CliOutcome> {
  const argv = options.privateLab
    ? ["--import", "tsx", "test/helpers/run-cli-private-lab.ts", ...args]
    : cliArgv(args);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      argv,
      { timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, pid: child.pid });
      },
    );
  });
}
