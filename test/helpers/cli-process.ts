import { type ChildProcess, execFile } from "node:child_process";
import { scriptArgv } from "./test-script.js";

/** The CLI entries of the tests: plain, on a private lab of the child, on the loopback platform. */
type CliEntry = "run-cli" | "run-cli-private-lab" | "run-cli-loopback";

/**
 * argv (after `process.execPath`) that runs the lambda-netbench CLI from the sources (not dist/,
 * so CLI tests need no build) through one of the entries in test/helpers (scriptArgv).
 */
export function cliArgv(args: string[], entry: CliEntry = "run-cli"): string[] {
  return [...scriptArgv(new URL(`./${entry}.ts`, import.meta.url)), ...args];
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
  const argv = cliArgv(args, options.privateLab ? "run-cli-private-lab" : "run-cli");
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

/**
 * How long a CLI server started from source may take to say it listens. A bound on whether it
 * starts, not on how fast: in the shared lane at nice 19, beside a busy loop, the VM and two
 * measuring files, `iperf3-server` took more than 20 s from spawn to its listening line
 * (2026-12-06), its receive-path self-test already passed.
 */
export const START_UP_SECONDS = 120;

/**
 * The port a CLI server child (`iperf3-server`) logs on stderr as `listening on HOST port N`;
 * `log()` has everything it wrote so far, for a failed test's message.
 */
export async function listeningPort(
  child: ChildProcess,
  host: string,
): Promise<{ port: number; log: () => string }> {
  let text = "";
  const pattern = new RegExp(`listening on ${host.replaceAll(".", "\\.")} port (\\d+)`);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line within ${START_UP_SECONDS} s: ${text}`)),
      START_UP_SECONDS * 1000,
    );
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${signal ?? code}) before its listening line: ${text}`));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = pattern.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  return { port, log: () => text };
}
