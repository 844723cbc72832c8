import { CLOUD_SERVICE_ADDRESS, HOST_LINK, hostNamespace } from "./lab-names.js";
import { createNamespace, createVethPair } from "./namespaces.js";
import type { DirectionShape } from "./profiles.js";
import { runCommand } from "./run-command.js";
import { shapeEgress } from "./shaping.js";

/**
 * The shared host link: on AWS many execution environments sit on one host whose own link
 * they share; a fleet's aggregate saturates there. In the lab the environments then link to a
 * "host" namespace that forwards to the cloud over one veth pair, shaped at the host rate in
 * each direction (no burst: a host link has none).
 */
export async function createHostLink(
  labName: string,
  cloudNamespace: string,
  megabitsPerSecond: number,
): Promise<{ namespace: string; megabitsPerSecond: number }> {
  const namespace = hostNamespace(labName);
  await createNamespace(namespace);
  await createVethPair(
    { namespace: cloudNamespace, device: HOST_LINK.cloud.device, cidr: `${HOST_LINK.cloud.address}/30` },
    { namespace, device: HOST_LINK.host.device, cidr: `${HOST_LINK.host.address}/30` },
  );
  await runCommand("ip", ["netns", "exec", namespace, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]);
  // environment links are added in the host namespace as they are created (connected routes);
  // the servers' address is behind the cloud's end, and the way back is through the host's end
  await runCommand("ip", [
    "-n",
    namespace,
    "route",
    "replace",
    `${CLOUD_SERVICE_ADDRESS}/32`,
    "via",
    HOST_LINK.cloud.address,
  ]);
  await runCommand("ip", [
    "-n",
    cloudNamespace,
    "route",
    "replace",
    HOST_LINK.environmentsCidr,
    "via",
    HOST_LINK.host.address,
  ]);
  const shape = hostLinkShape(megabitsPerSecond);
  await shapeEgress(cloudNamespace, HOST_LINK.cloud.device, shape, null);
  await shapeEgress(namespace, HOST_LINK.host.device, shape, null);
  return { namespace, megabitsPerSecond };
}

/** A steady rate: a bucket of a few ms at the rate (and a 64 KiB GSO packet), no peak. */
export function hostLinkShape(megabitsPerSecond: number): DirectionShape {
  const rateBitsPerSecond = Math.round(megabitsPerSecond * 1e6);
  return {
    rateBitsPerSecond,
    peakBitsPerSecond: null,
    bucketBytes: Math.max(131_072, Math.round((rateBitsPerSecond * 0.004) / 8)),
  };
}
