import type { DirectionShape } from "./profiles.js";
import { runCommand } from "./run-command.js";

/**
 * Link shaping with tc on the egress of a veth end: the environment's end shapes the upload,
 * the cloud's end the download. Each direction is a tbf (rate, and the start-of-transfer
 * burst: its bucket drained at `peakrate`; `mtu` must cover a 64 KiB GSO packet or tbf would
 * split every packet). With a round trip or loss (kernels with netem only), the root is a
 * netem qdisc holding the packets for half the round trip, and the tbf is its child: netem
 * hands packets on once their delay is over and the tbf then paces them, so the delay adds to
 * the path while rate and burst stay the tbf's. netem also orphans the packets it delays, so
 * TCP's small-queue limit does not cap a sender behind the delay.
 */

const GSO_MTU_BYTES = 65_536;
/** Queue in front of the shaper: at least 20 ms at the rate it drains at, and 1 MiB. */
const QUEUE_SECONDS = 0.02;
const MIN_QUEUE_BYTES = 1_048_576;
/** netem counts packets: size its delay line for the smallest full-size packet (an MTU of 1,500). */
const SMALLEST_FULL_PACKET_BYTES = 1500;
const MIN_NETEM_PACKETS = 1000;

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

/** The path's delay and loss in one direction (half the profile's round trip). */
export interface PathImpairment {
  oneWayMs: number;
  lossPercent: number;
}

/**
 * tbf's parameters. Its queue holds the drain rate x max(20 ms, the round trip): TCP needs a
 * bottleneck buffer of about rate x RTT to keep a long path full.
 */
export function tbfArguments(shape: DirectionShape, roundTripMs = 0): string[] {
  const drainBitsPerSecond = shape.peakBitsPerSecond ?? shape.rateBitsPerSecond;
  const queueSeconds = Math.max(QUEUE_SECONDS, roundTripMs / 1000);
  const limitBytes = Math.max(MIN_QUEUE_BYTES, Math.round((drainBitsPerSecond * queueSeconds) / 8));
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

/**
 * netem's parameters: the one-way delay (microseconds), the loss, and a delay line long enough
 * for everything sent during the delay at the fastest rate the link drains (twice over: a
 * sender in slow start doubles its rate each round trip).
 */
export function netemArguments(shape: DirectionShape, impairment: PathImpairment): string[] {
  const drainBitsPerSecond = shape.peakBitsPerSecond ?? shape.rateBitsPerSecond;
  const inFlightBytes = (drainBitsPerSecond / 8) * (impairment.oneWayMs / 1000) * 2;
  const limitPackets = Math.max(MIN_NETEM_PACKETS, Math.ceil(inFlightBytes / SMALLEST_FULL_PACKET_BYTES));
  const args = ["netem", "delay", `${Math.round(impairment.oneWayMs * 1000)}us`, "limit", `${limitPackets}`];
  if (impairment.lossPercent > 0) args.push("loss", "random", `${impairment.lossPercent}%`);
  return args;
}

/** The tc commands (arguments after `tc -n NS`) that shape one veth end from scratch. */
export function shapingCommands(
  device: string,
  shape: DirectionShape,
  impairment: PathImpairment | null,
): string[][] {
  if (!hasImpairment(impairment)) {
    return [["qdisc", "add", "dev", device, "root", "handle", "1:", ...tbfArguments(shape)]];
  }
  return [
    ["qdisc", "add", "dev", device, "root", "handle", "1:", ...netemArguments(shape, impairment)],
    [
      "qdisc",
      "add",
      "dev",
      device,
      "parent",
      "1:1",
      "handle",
      "10:",
      ...tbfArguments(shape, impairment.oneWayMs * 2),
    ],
  ];
}

/**
 * Shapes one veth end from scratch (the old qdiscs removed first: the root's kind may change
 * between tbf and netem); a fresh bucket starts full, like a fresh environment.
 */
export async function shapeEgress(
  namespace: string,
  device: string,
  shape: DirectionShape,
  impairment: PathImpairment | null = null,
): Promise<void> {
  await removeShaping(namespace, device);
  for (const command of shapingCommands(device, shape, impairment)) {
    const result = await runCommand("tc", ["-n", namespace, ...command], { allowFailure: true });
    if (result.exitCode !== 0) {
      const stderr = result.stderr.trim();
      if (command.includes("netem")) {
        throw new Error(
          `lab: roundTripMs/lossPercent need the kernel's netem qdisc (sch_netem), which failed here (tc: ${stderr}); use a profile with roundTripMs 0 and lossPercent 0`,
        );
      }
      throw new Error(`lab: \`tc -n ${namespace} ${command.join(" ")}\` failed: ${stderr}`);
    }
  }
}

export async function removeShaping(namespace: string, device: string): Promise<void> {
  await runCommand("tc", ["-n", namespace, "qdisc", "delete", "dev", device, "root"], { allowFailure: true });
}

/** The qdisc lines tc reports for a device (for status and tests). */
export async function describeShaping(namespace: string, device: string): Promise<string> {
  const { stdout } = await runCommand("tc", ["-n", namespace, "qdisc", "show", "dev", device], {
    allowFailure: true,
  });
  return stdout.trim();
}

/** Whether this kernel has sch_fq: learnt from the first attempt, so a missing fq costs one tc call. */
let fqAvailable: boolean | undefined;

/** Whether sch_fq caps flows here: true or false once tried, undefined before the first attempt. */
export function fqFlowCapAvailable(): boolean | undefined {
  return fqAvailable;
}

/** True when shapingCommands puts netem at the root (a round trip or loss to emulate). */
function hasImpairment(impairment: PathImpairment | null): impairment is PathImpairment {
  return impairment !== null && (impairment.oneWayMs > 0 || impairment.lossPercent > 0);
}

/**
 * The tc command (after `tc -n NS`) that puts sch_fq with `maxrate` under the tbf that
 * shapingCommands built: the tbf is the root (handle 1:) or netem's child (handle 10:), and fq
 * is the tbf's inner qdisc, so each flow is paced to the cap before the link's rate applies.
 * fq tells flows apart by socket, or by the packet's hash where netem orphaned it.
 */
export function fqFlowCapCommand(
  device: string,
  maxrateBitsPerSecond: number,
  impairment: PathImpairment | null,
): string[] {
  const tbfClass = hasImpairment(impairment) ? "10:1" : "1:1";
  return [
    "qdisc",
    "replace",
    "dev",
    device,
    "parent",
    tbfClass,
    "handle",
    "20:",
    "fq",
    "maxrate",
    `${Math.round(maxrateBitsPerSecond)}bit`,
  ];
}

/**
 * Caps each flow through a shaped veth end with sch_fq's `maxrate`, where the kernel has fq.
 * Returns false where it does not (e.g. a kernel built without CONFIG_NET_SCH_FQ): the lab's
 * own servers then carry the per-flow cap alone (iperf3 paces each stream, nginx each request).
 * `maxrateBitsPerSecond` is on the wire, as fq counts it.
 */
export async function capFlowsWithFq(
  namespace: string,
  device: string,
  maxrateBitsPerSecond: number,
  impairment: PathImpairment | null = null,
): Promise<boolean> {
  if (fqAvailable === false) return false;
  const result = await runCommand(
    "tc",
    ["-n", namespace, ...fqFlowCapCommand(device, maxrateBitsPerSecond, impairment)],
    { allowFailure: true },
  );
  fqAvailable = result.exitCode === 0;
  return fqAvailable;
}
