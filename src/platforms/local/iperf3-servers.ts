import { startDetached, waitForListener } from "./detached-process.js";
import { CLI_ENTRY } from "./dist-paths.js";
import type { LabProcess } from "./state-file.js";

/**
 * The cloud side's iperf3 servers: one per environment that may run at once (an iperf3
 * server runs one test at a time). Which server program runs is decided here, in one place:
 * ours (`lambda-netbench iperf3-server`, the default the issue asks for) or the stock iperf3
 * 3.12 (measured here, uploading into a raised-3000 10,240 MB environment: ours received
 * 2.5-2.7 Gbit/s where stock received 2.87, and only 1.1-1.4 on a loaded host; so uploads
 * near 3 Gbit/s need the stock server to be true until ours is faster).
 */
export type Iperf3ServerKind = "ours" | "stock";
export const DEFAULT_IPERF3_SERVER: Iperf3ServerKind = "ours";

export function iperf3ServerDescription(kind: Iperf3ServerKind): string {
  return kind === "ours"
    ? "lambda-netbench iperf3-server (ours, TypeScript)"
    : "stock iperf3 3.12 (iperf3 -s)";
}

export function iperf3ServerCommand(kind: Iperf3ServerKind, host: string, port: number): [string, string[]] {
  if (kind === "stock") return ["iperf3", ["--server", "--bind", host, "--port", `${port}`]];
  return [process.execPath, [CLI_ENTRY, "iperf3-server", "--bind", host, "--port", `${port}`]];
}

export async function startIperf3Servers(
  kind: Iperf3ServerKind,
  namespace: string | null,
  host: string,
  ports: number[],
  logDir: string,
  /** Told of each server as it starts, so a failure later still cleans it up. */
  onStarted: (server: LabProcess) => void = () => {},
): Promise<LabProcess[]> {
  const started: { server: LabProcess; port: number; logFile: string }[] = [];
  for (const port of ports) {
    const [file, args] = iperf3ServerCommand(kind, host, port);
    const logFile = `${logDir}/iperf3-${port}.log`;
    const server = await startDetached(`iperf3-server:${port}`, namespace, file, args, logFile);
    onStarted(server);
    started.push({ server, port, logFile });
  }
  // all start at once and are ready when they listen: on a slow host (Node takes ~16 s to
  // start in an emulated guest) waiting for each in turn would add up
  await Promise.all(
    started.map(({ server, port, logFile }) =>
      waitForListener(namespace, port, `iperf3 server ${port}`, server, logFile),
    ),
  );
  return started.map(({ server }) => server);
}
