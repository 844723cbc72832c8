import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";

import { freeLoopbackPort } from "../../helpers/free-port.js";

export interface StockServer {
  port: number;
  pid: number;
  /** Everything the server printed (for assertion messages). */
  output: () => string;
  /** With `json`: the server's own -J document of each finished test, in order. */
  documents: () => Array<Record<string, unknown>>;
  /**
   * Resolves once the server is back at "Server listening" after its last test (text mode): the
   * stock server ends a test after its client has its results, and answers ACCESS_DENIED ("busy")
   * to a client that connects before; on a loaded host that gap is seconds long.
   */
  idle: (timeoutMs?: number) => Promise<void>;
  stop: () => Promise<void>;
}

/** True once some socket listens on `port` (/proc/net/tcp state 0A): a -J server prints nothing until a test ends. */
async function listening(port: number): Promise<boolean> {
  const table = await readFile("/proc/net/tcp", "utf8");
  const local = `:${port.toString(16).toUpperCase().padStart(4, "0")} `;
  return table.split("\n").some((line) => line.includes(local) && line.split(/\s+/)[4] === "0A");
}

/**
 * Starts the stock `iperf3 -s` (Debian 3.12) and waits until it listens. `command` lets a
 * caller run it elsewhere (e.g. ["ip", "netns", "exec", NS, "iperf3"]); `ip netns exec`
 * execs iperf3, so the PID we kill is iperf3's own.
 */
export async function startStockServer(
  options: {
    port?: number;
    bindAddress?: string;
    extraArgs?: string[];
    command?: string[];
    /** -J: one JSON document per test on stdout (see `documents`). */
    json?: boolean;
  } = {},
): Promise<StockServer> {
  const port = options.port ?? (await freeLoopbackPort());
  const [program, ...prefix] = options.command ?? ["iperf3"];
  const args = [
    ...prefix,
    "-s",
    "-p",
    String(port),
    ...(options.bindAddress ? ["-B", options.bindAddress] : []),
    "--forceflush",
    ...(options.json ? ["-J"] : []),
    ...(options.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn(program as string, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 5_000;
  while (!(options.json ? await listening(port) : output.includes("Server listening"))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`iperf3 -s did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    port,
    pid: child.pid as number,
    output: () => output,
    // each document ends with a "}" alone on its line (the server indents everything inside)
    documents: () =>
      output
        .split(/^\}$/m)
        .filter((part) => part.trim().startsWith("{"))
        .map((part) => JSON.parse(`${part}}`) as Record<string, unknown>),
    idle: async (timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs;
      // one turn of the event loop first: what the server wrote before its client heard back is
      // in the pipe, but read into `output` only when the loop polls (never during a spawnSync)
      do {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (Date.now() > until)
          throw new Error(`iperf3 -s not idle after ${timeoutMs} ms: ${output.slice(-500)}`);
      } while (output.lastIndexOf("Server listening") < output.lastIndexOf("Accepted connection"));
    },
    stop: async () => {
      // a child killed by a signal keeps exitCode null: signalCode says it has gone
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid as number, "SIGKILL");
        await exited;
      }
    },
  };
}
