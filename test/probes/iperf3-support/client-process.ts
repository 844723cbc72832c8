import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptArgv } from "../../helpers/test-script.js";
import { stockClientArgs } from "./stock-client.js";

const cliEntry = new URL("../../helpers/run-cli.ts", import.meta.url);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export interface ClientRun {
  bitsPerSecondSent: number;
  bitsPerSecondReceived: number;
  bytesSent: number;
  /** Client process CPU seconds during the test (see `cpuSource`). */
  cpuSeconds: number;
  cpuSource: string;
  document: Record<string, unknown>;
}

export interface ClientRunOptions {
  /** Command prefix, e.g. ["ip", "netns", "exec", NS]. */
  prefix: string[];
  host: string;
  port: number;
  timeSeconds: number;
  parallel: number;
  reverse: boolean;
  timeoutMs: number;
  /** --bytes: end after this many bytes over all streams (ours only). */
  byteLimit?: number;
}

/** Our client through the real CLI (`probe iperf3 --json`) in its own process. */
export function runOurClient(options: ClientRunOptions): Promise<ClientRun> {
  const args = [
    ...options.prefix,
    process.execPath,
    ...scriptArgv(cliEntry),
    "probe",
    "iperf3",
    "--host",
    options.host,
    "--port",
    String(options.port),
    "--time",
    String(options.timeSeconds),
    "--parallel",
    String(options.parallel),
    ...(options.reverse ? ["--reverse"] : []),
    ...(options.byteLimit ? ["--bytes", String(options.byteLimit)] : []),
    "--json",
  ];
  return runJson(args, options.timeoutMs).then((document) => {
    const summary = summarize(document);
    // our own accounting: process.cpuUsage() from connect to IPERF_DONE
    return { ...summary, cpuSeconds: Number(document.cpuSeconds), cpuSource: "process.cpuUsage", document };
  });
}

/** The stock iperf3 3.12 client with -J, measured like ours (rates, CPU seconds). */
export function measureStockClient(options: ClientRunOptions): Promise<ClientRun> {
  const args = [
    ...options.prefix,
    ...stockClientArgs(options.host, options.port, [
      "-t",
      String(options.timeSeconds),
      "-P",
      String(options.parallel),
      ...(options.reverse ? ["-R"] : []),
    ]),
  ];
  return runJson(args, options.timeoutMs).then((document) => {
    if (typeof document.error === "string") throw new Error(`stock iperf3: ${document.error}`);
    const summary = summarize(document);
    const end = document.end as {
      cpu_utilization_percent: { host_total: number };
      sum_sent: { seconds: number };
      sum_received: { seconds: number };
    };
    // host_total is the process's CPU over the test's wall time (connect to the final sample)
    const wallSeconds = options.reverse ? end.sum_received.seconds : end.sum_sent.seconds;
    const cpuSeconds = (end.cpu_utilization_percent.host_total / 100) * wallSeconds;
    return { ...summary, cpuSeconds, cpuSource: "host_total x duration", document };
  });
}

function summarize(document: Record<string, unknown>) {
  const end = document.end as {
    sum_sent: { bits_per_second: number; bytes: number };
    sum_received: { bits_per_second: number };
  };
  return {
    bitsPerSecondSent: end.sum_sent.bits_per_second,
    bitsPerSecondReceived: end.sum_received.bits_per_second,
    bytesSent: end.sum_sent.bytes,
  };
}

/** Runs `args` in its own process group and resolves with the -J-like document it prints (one with `end`). */
export function runJson(args: string[], timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const [program, ...rest] = args;
    // own process group, so a timeout kills flock, ip netns exec and the client together
    const child = spawn(program as string, rest, {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      let document: Record<string, unknown> | undefined;
      try {
        document = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        document = undefined;
      }
      if (document && document.ok !== false && document.end) resolve(document);
      else
        reject(
          new Error(`${args.join(" ")} exited ${code}: ${stderr.slice(0, 2000)} ${stdout.slice(0, 500)}`),
        );
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
