import { join } from "node:path";
import { writeFlowCapFile } from "../../probes/iperf3/flow-cap-file.js";
import { startDetached, waitForListener } from "./detached-process.js";
import { CLI_ENTRY } from "./dist-paths.js";
import { LabRefusal } from "./lab-refusal.js";
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

/** Which server a lab runs, from the description its state records. */
export function iperf3ServerKindOf(description: string): Iperf3ServerKind {
  return description === iperf3ServerDescription("stock") ? "stock" : "ours";
}

/** Where a lab's servers read the per-flow cap of the profile in use (ours only: stock cannot pace). */
export function flowCapFilePath(labDir: string): string {
  return join(labDir, "flow-cap.json");
}

/** Refuses a per-flow cap with the stock server, which cannot pace streams (before anything starts). */
export function checkIperf3FlowCap(kind: Iperf3ServerKind, flowBitsPerSecond: number | null): void {
  if (kind === "stock" && flowBitsPerSecond !== null) {
    throw new LabRefusal(
      "flowMegabitsPerSecond: the stock iperf3 server cannot cap each stream; use the lab's own server (--iperf3-server ours) or a profile without a per-flow cap",
    );
  }
}

/**
 * Tells the lab's iperf3 servers the profile's per-flow cap (payload bits per second, null for
 * none); they read it at each test start. The stock server cannot pace streams, so a cap with it
 * is refused rather than silently not applied.
 */
export function setIperf3FlowCap(
  kind: Iperf3ServerKind,
  labDir: string,
  flowBitsPerSecond: number | null,
): void {
  checkIperf3FlowCap(kind, flowBitsPerSecond);
  writeFlowCapFile(flowCapFilePath(labDir), flowBitsPerSecond);
}

export function iperf3ServerCommand(
  kind: Iperf3ServerKind,
  host: string,
  port: number,
  labDir?: string,
): [string, string[]] {
  if (kind === "stock") return ["iperf3", ["--server", "--bind", host, "--port", `${port}`]];
  const flowCap = labDir ? ["--flow-cap-file", flowCapFilePath(labDir)] : [];
  return [process.execPath, [CLI_ENTRY, "iperf3-server", "--bind", host, "--port", `${port}`, ...flowCap]];
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
    const [file, args] = iperf3ServerCommand(kind, host, port, logDir);
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
