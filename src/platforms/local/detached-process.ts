import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { hostCgroups } from "./cgroup-choice.js";
import { joinCgroupScript } from "./cgroups.js";
import { labOfNamespace } from "./lab-names.js";
import { inNamespace } from "./namespaces.js";
import { runCommand } from "./run-command.js";
import { type LabProcess, processStartTicks } from "./state-file.js";

/**
 * Server processes that outlive `lab up`: detached (own session), output to a log file,
 * started inside the cloud namespace with nsenter (which execs, so the PID is the server's),
 * and in the lab's cloud CPU group before it execs, so every process it forks is there too.
 */
export async function startDetached(
  role: string,
  namespace: string | null,
  file: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LabProcess> {
  const [nsCommand, nsArgs] = inNamespace(namespace, file, args);
  const labName = namespace === null ? null : labOfNamespace(namespace);
  const cgroups = hostCgroups().driver;
  const cloud = labName === null || cgroups === null ? null : await cgroups.cloudCgroup(labName);
  const [command, commandArgs]: [string, string[]] =
    cloud === null
      ? [nsCommand, nsArgs]
      : ["sh", ["-c", `${joinCgroupScript(cloud)} && exec "$@"`, "sh", nsCommand, ...nsArgs]];
  const log = openSync(logFile, "a");
  try {
    const child = spawn(command, commandArgs, { detached: true, stdio: ["ignore", log, log], env });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`lab: could not start ${role} (${file})`);
    child.unref();
    const startTicks = await processStartTicks(pid);
    if (startTicks === null)
      throw new Error(`lab: ${role} (${file}) exited at once; see ${logFile}${logEnding(logFile)}`);
    return { role, pid, startTicks };
  } finally {
    closeSync(log);
  }
}

/**
 * How long a server may take to listen after it starts: generous, since readiness is checked
 * (a listening socket), not assumed after a fixed delay, and a server that exits is reported
 * at once. Measured: under a second on this machine; in the stock-kernel guest (TCG, root
 * filesystem over 9p) Node takes ~16 s to start on a quiet host, and the CLI 102 s while
 * the host ran at a load average of 24.
 */
export const SERVER_READY_LIMIT_SECONDS = 600;

/** Waits until something listens on the TCP port inside the namespace (ss), or fails after the limit. */
export async function waitForListener(
  namespace: string | null,
  port: number,
  what: string,
  process: LabProcess,
  logFile: string,
  timeoutSeconds = SERVER_READY_LIMIT_SECONDS,
): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  while (Date.now() < deadline) {
    const [file, args] = inNamespace(namespace, "ss", ["-Hltn", `sport = :${port}`]);
    const { stdout } = await runCommand(file, args, { allowFailure: true });
    if (stdout.trim().length > 0) return;
    if ((await processStartTicks(process.pid)) === null) {
      throw new Error(
        `lab: ${what} exited before listening on port ${port}; see ${logFile}${logEnding(logFile)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`lab: ${what} is not listening on port ${port} after ${timeoutSeconds} s; see ${logFile}`);
}

/** How much of a server's log an error quotes: its last lines say why it exited. */
const LOG_ENDING_BYTES = 1_500;

/**
 * "; its log ends: ..." with the log's last bytes, or "" when it is empty or unreadable: the lab
 * is often removed with its log right after the error (a test's private lab), and the log is
 * what says why the server exited (a busy run's "iperf3-server:5201 exited at once" said nothing
 * else once its lab was gone).
 */
export function logEnding(logFile: string): string {
  let text: string;
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    return "";
  }
  const ending = text.slice(-LOG_ENDING_BYTES).trim();
  return ending === "" ? "" : `; its log ends: ${JSON.stringify(ending)}`;
}

/** Kills a recorded process if it is still the same process, and waits until it is gone. */
export async function stopProcess(recorded: LabProcess): Promise<void> {
  if ((await processStartTicks(recorded.pid)) !== recorded.startTicks) return;
  try {
    process.kill(recorded.pid, "SIGTERM");
  } catch {
    return;
  }
  for (let i = 0; i < 30; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if ((await processStartTicks(recorded.pid)) !== recorded.startTicks) return;
  }
  try {
    process.kill(recorded.pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
