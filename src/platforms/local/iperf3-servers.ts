import { startDetached, waitForListener } from "./detached-process.js";
import type { LabProcess } from "./state-file.js";

/**
 * The cloud side's iperf3 servers: one per environment that may run at once (an iperf3
 * server runs one test at a time). Which server program runs is decided here, in one place.
 */
export const IPERF3_SERVER_KIND = "stock iperf3 3.12 (iperf3 -s)";

export function iperf3ServerCommand(host: string, port: number): [string, string[]] {
  return ["iperf3", ["--server", "--bind", host, "--port", `${port}`]];
}

export async function startIperf3Servers(
  namespace: string | null,
  host: string,
  ports: number[],
  logDir: string,
): Promise<LabProcess[]> {
  const started: LabProcess[] = [];
  for (const port of ports) {
    const [file, args] = iperf3ServerCommand(host, port);
    const logFile = `${logDir}/iperf3-${port}.log`;
    const server = await startDetached(`iperf3-server:${port}`, namespace, file, args, logFile);
    started.push(server);
    await waitForListener(namespace, port, `iperf3 server ${port}`, server, logFile);
  }
  return started;
}
