import { readFile } from "node:fs/promises";
import { flowBucketDepthBytes } from "../../probes/iperf3/flow-pacer.js";
import { runCommand } from "./run-command.js";

/**
 * Where a profile caps each flow, an upload is capped by how fast the lab's server reads it (the
 * flow pacer, src/probes/iperf3/flow-pacer.ts), and the link runs ahead of those reads by what
 * the server's receive buffer holds unread. The kernel grows that buffer on its own (up to
 * net.ipv4.tcp_rmem's maximum: 32 MB on this host), most after a read that caught up: seen at
 * seed-oregon 1/8, two paced flows held 10.4 MB unread in an 11 MB buffer, and a buffer grown
 * inside a 2 s window let 177 Mbit/s cross a link of two 75 Mbit/s flows (2026-12-07). A real
 * per-flow cap holds the flow on the wire. So while a cap is in force the cloud side's receive
 * buffers are fixed at what a flow at the cap needs (tcp_rmem's default and maximum alike, so no
 * buffer grows): twice the pacer's bucket (a reader's timer late by up to 100 ms loses nothing)
 * plus the round trip's worth at the cap. What the link can run ahead of the reads is then at
 * most that, and it is there from the first second on.
 */

/** The smallest buffer the kernel's own default allows a connection, kept as tcp_rmem's minimum. */
const MIN_RECEIVE_BUFFER_BYTES = 4096;

/** Receive buffer bytes for a flow capped at `flowBitsPerSecond` (payload) over `roundTripMs`. */
export function cappedReceiveBufferBytes(flowBitsPerSecond: number, roundTripMs: number): number {
  const roundTripBytes = (flowBitsPerSecond / 8) * (roundTripMs / 1000);
  return Math.ceil(2 * (flowBucketDepthBytes(flowBitsPerSecond) + roundTripBytes));
}

/**
 * The cloud namespace's net.ipv4.tcp_rmem ("min default max"): fixed at the capped flow's
 * buffer while a cap is in force, else the host's own setting (a new namespace starts from it).
 */
export function cloudTcpRmem(
  flowBitsPerSecond: number | null,
  roundTripMs: number,
  hostTcpRmem: string,
): string {
  if (flowBitsPerSecond === null) return hostTcpRmem.trim().split(/\s+/).join(" ");
  const bytes = cappedReceiveBufferBytes(flowBitsPerSecond, roundTripMs);
  return `${MIN_RECEIVE_BUFFER_BYTES} ${bytes} ${bytes}`;
}

/**
 * Sets the cloud namespace's receive buffers for the profile in use (a lab started for another
 * profile may have them fixed for its cap). No namespace (an unshaped lab on loopback): nothing
 * is changed, as the host's own settings are not the lab's.
 */
export async function applyCloudReceiveBuffers(
  namespace: string | null,
  flowBitsPerSecond: number | null,
  roundTripMs: number,
): Promise<void> {
  if (namespace === null) return;
  const host = await readFile("/proc/sys/net/ipv4/tcp_rmem", "utf8");
  const setting = cloudTcpRmem(flowBitsPerSecond, roundTripMs, host);
  await runCommand("ip", [
    "netns",
    "exec",
    namespace,
    "sh",
    "-c",
    `printf '%s\\n' "$0" > /proc/sys/net/ipv4/tcp_rmem`,
    setting,
  ]);
}
