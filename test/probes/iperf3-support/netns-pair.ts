import { execFileSync } from "node:child_process";

/**
 * Two network namespaces joined by a veth pair, both ends inside the namespaces (never in
 * the root namespace), addresses in 198.18.0.0/15. Optional tbf shaping on the egress of
 * side A (what A sends) and of side B (what A receives).
 */
export interface NetnsPair {
  nsA: string;
  nsB: string;
  addressA: string;
  addressB: string;
  /** Prefix for running a command inside a namespace: ["ip", "netns", "exec", NS]. */
  exec: (ns: string) => string[];
  destroy: () => void;
}

export function createNetnsPair(
  prefix: string,
  shaping: { aEgressMbit?: number; bEgressMbit?: number } = {},
): NetnsPair {
  const nsA = `${prefix}a`;
  const nsB = `${prefix}b`;
  const vethA = `${prefix}x`;
  const vethB = `${prefix}y`;
  const addressA = "198.18.200.1";
  const addressB = "198.18.200.2";
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
  const pair: NetnsPair = {
    nsA,
    nsB,
    addressA,
    addressB,
    exec: (ns) => ["ip", "netns", "exec", ns],
    destroy: () => {
      for (const ns of [nsA, nsB]) {
        try {
          ip("netns", "del", ns); // deleting a namespace removes its veth end and qdiscs
        } catch {
          // already gone
        }
      }
    },
  };
  try {
    ip("netns", "add", nsA);
    ip("netns", "add", nsB);
    ip("link", "add", vethA, "netns", nsA, "type", "veth", "peer", "name", vethB, "netns", nsB);
    for (const [ns, dev, address] of [
      [nsA, vethA, addressA],
      [nsB, vethB, addressB],
    ] as const) {
      ip("-n", ns, "addr", "add", `${address}/30`, "dev", dev);
      ip("-n", ns, "link", "set", dev, "up");
      ip("-n", ns, "link", "set", "lo", "up");
    }
    const shape = (ns: string, dev: string, mbit: number) =>
      execFileSync(
        "tc",
        [
          "-n",
          ns,
          "qdisc",
          "add",
          "dev",
          dev,
          "root",
          "tbf",
          "rate",
          `${mbit}mbit`,
          "burst",
          "256kb",
          "latency",
          "20ms",
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
    if (shaping.aEgressMbit) shape(nsA, vethA, shaping.aEgressMbit);
    if (shaping.bEgressMbit) shape(nsB, vethB, shaping.bEgressMbit);
  } catch (error) {
    pair.destroy();
    throw error;
  }
  return pair;
}
