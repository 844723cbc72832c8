import type { DirectionShape } from "./profiles.js";
import { runCommand } from "./run-command.js";

/**
 * Bandwidth shaping with tc on the egress of a veth end. This kernel has tbf and htb but no
 * netem, fq or filters, so each direction is one tbf on the sending side's veth: the
 * environment's end shapes the upload, the cloud's end the download. tbf's bucket
 * (`burst`) drained at `peakrate` gives the start-of-transfer burst; `mtu` must cover a
 * 64 KiB GSO packet or tbf would split every packet.
 */

const GSO_MTU_BYTES = 65_536;
/** Queue in front of the shaper: 20 ms at the rate it drains at, at least 1 MiB. */
const QUEUE_SECONDS = 0.02;
const MIN_QUEUE_BYTES = 1_048_576;

/**
 * tbf's second bucket (`mtu`), which holds the peak rate: a 64 KiB GSO packet at least, and 1 ms
 * at the peak. With only one packet's worth, tbf arms a timer for nearly every packet, and at
 * 3-4 Gbit/s on a loaded host the timers' lateness cost a third of the rate (measured: S3 at
 * 10,240 MB on seed-oregon-2026 ~1,950 Mbit/s with a 64 KiB peak bucket).
 */
const PEAK_BUCKET_SECONDS = 0.001;
export function peakBucketBytes(peakBitsPerSecond: number): number {
  return Math.max(GSO_MTU_BYTES, Math.round((peakBitsPerSecond * PEAK_BUCKET_SECONDS) / 8));
}

export function tbfArguments(shape: DirectionShape): string[] {
  const drainBitsPerSecond = shape.peakBitsPerSecond ?? shape.rateBitsPerSecond;
  const limitBytes = Math.max(MIN_QUEUE_BYTES, Math.round((drainBitsPerSecond * QUEUE_SECONDS) / 8));
  const args = ["tbf", "rate", `${shape.rateBitsPerSecond}bit`, "burst", `${shape.bucketBytes}`];
  if (shape.peakBitsPerSecond !== null) {
    args.push(
      "peakrate",
      `${shape.peakBitsPerSecond}bit`,
      "mtu",
      `${peakBucketBytes(shape.peakBitsPerSecond)}`,
    );
  }
  args.push("limit", `${limitBytes}`);
  return args;
}

/** Sets (or replaces) the shaper of one veth end; a fresh bucket starts full, like a fresh environment. */
export async function shapeEgress(namespace: string, device: string, shape: DirectionShape): Promise<void> {
  await runCommand("tc", [
    "-n",
    namespace,
    "qdisc",
    "replace",
    "dev",
    device,
    "root",
    "handle",
    "1:",
    ...tbfArguments(shape),
  ]);
}

/**
 * Adds a fixed one-way delay under the shaper (netem as tbf's child). Fails with a clear
 * message on kernels without netem (like the one this lab was built on).
 */
export async function addDelay(namespace: string, device: string, oneWayMs: number): Promise<void> {
  const result = await runCommand(
    "tc",
    [
      "-n",
      namespace,
      "qdisc",
      "replace",
      "dev",
      device,
      "parent",
      "1:1",
      "handle",
      "10:",
      "netem",
      "delay",
      `${oneWayMs}ms`,
      "limit",
      "100000",
    ],
    { allowFailure: true },
  );
  if (result.exitCode !== 0) {
    throw new Error(
      `lab: roundTripMs needs the kernel's netem qdisc, which this kernel lacks (tc: ${result.stderr.trim()}); use a profile with roundTripMs 0`,
    );
  }
}

export async function removeShaping(namespace: string, device: string): Promise<void> {
  await runCommand("tc", ["-n", namespace, "qdisc", "delete", "dev", device, "root"], { allowFailure: true });
}

/** The qdisc line tc reports for a device (for status and tests). */
export async function describeShaping(namespace: string, device: string): Promise<string> {
  const { stdout } = await runCommand("tc", ["-n", namespace, "qdisc", "show", "dev", device], {
    allowFailure: true,
  });
  return stdout.trim();
}

/** Whether this kernel has sch_fq: learnt from the first attempt, so a missing fq costs one tc call. */
let fqAvailable: boolean | undefined;

/**
 * Caps each flow through a shaped veth end with sch_fq's `maxrate` (fq as tbf's child), where
 * the kernel has fq. Returns false where it does not (this build machine): the lab's own
 * servers then carry the per-flow cap alone (iperf3 paces each stream, nginx each request).
 * `maxrateBitsPerSecond` is on the wire, as fq counts it.
 */
export async function capFlowsWithFq(
  namespace: string,
  device: string,
  maxrateBitsPerSecond: number,
): Promise<boolean> {
  if (fqAvailable === false) return false;
  const result = await runCommand(
    "tc",
    [
      "-n",
      namespace,
      "qdisc",
      "replace",
      "dev",
      device,
      "parent",
      "1:1",
      "handle",
      "20:",
      "fq",
      "maxrate",
      `${Math.round(maxrateBitsPerSecond)}bit`,
    ],
    { allowFailure: true },
  );
  fqAvailable = result.exitCode === 0;
  return fqAvailable;
}
