import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A free loopback TCP port chosen by the OS (never assume 5201 is free). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface StockServer {
  port: number;
  pid: number;
  /** Everything the server printed (for assertion messages). */
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts the stock `iperf3 -s` (Debian 3.12) and waits until it listens. `command` lets a
 * caller run it elsewhere (e.g. ["ip", "netns", "exec", NS, "iperf3"]); `ip netns exec`
 * execs iperf3, so the PID we kill is iperf3's own.
 */
export async function startStockServer(
  options: { port?: number; bindAddress?: string; extraArgs?: string[]; command?: string[] } = {},
): Promise<StockServer> {
  const port = options.port ?? (await freePort());
  const [program, ...prefix] = options.command ?? ["iperf3"];
  const args = [
    ...prefix,
    "-s",
    "-p",
    String(port),
    ...(options.bindAddress ? ["-B", options.bindAddress] : []),
    "--forceflush",
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
  while (!output.includes("Server listening")) {
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
    stop: async () => {
      if (child.exitCode === null) {
        process.kill(child.pid as number, "SIGKILL");
        await exited;
      }
    },
  };
}
