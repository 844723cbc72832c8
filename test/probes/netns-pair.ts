import { execFileSync } from "node:child_process";

/**
 * Two network namespaces joined by a veth whose both ends live inside them (never in the root
 * namespace), with 198.18.0.0/15 addresses, for tests that need a real, shapeable link.
 */
export interface NetnsPair {
  serverNs: string;
  clientNs: string;
  serverAddress: string;
  clientAddress: string;
  /** tbf on both egresses: each direction is shaped at the sender's side. */
  shape(rateMbit: number): void;
  remove(): void;
}

function ip(args: string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}

export function createNetnsPair(prefix: string): NetnsPair {
  const serverNs = `${prefix}${process.pid}a`;
  const clientNs = `${prefix}${process.pid}b`;
  const pair: NetnsPair = {
    serverNs,
    clientNs,
    serverAddress: "198.18.1.1",
    clientAddress: "198.18.1.2",
    shape(rateMbit: number) {
      for (const [ns, dev] of [
        [serverNs, "veth-s"],
        [clientNs, "veth-c"],
      ] as const) {
        ip([
          "netns",
          "exec",
          ns,
          "tc",
          "qdisc",
          "replace",
          "dev",
          dev,
          "root",
          "tbf",
          "rate",
          `${rateMbit}mbit`,
          "burst",
          "1mb",
          "latency",
          "20ms",
        ]);
      }
    },
    remove() {
      for (const ns of [serverNs, clientNs]) {
        try {
          ip(["netns", "del", ns]);
        } catch {
          // already gone
        }
      }
    },
  };
  try {
    ip(["netns", "add", serverNs]);
    ip(["netns", "add", clientNs]);
    ip([
      "netns",
      "exec",
      serverNs,
      "ip",
      "link",
      "add",
      "veth-s",
      "type",
      "veth",
      "peer",
      "name",
      "veth-c",
      "netns",
      clientNs,
    ]);
    ip(["-n", serverNs, "addr", "add", `${pair.serverAddress}/30`, "dev", "veth-s"]);
    ip(["-n", clientNs, "addr", "add", `${pair.clientAddress}/30`, "dev", "veth-c"]);
    for (const [ns, dev] of [
      [serverNs, "veth-s"],
      [clientNs, "veth-c"],
    ] as const) {
      ip(["-n", ns, "link", "set", "lo", "up"]);
      ip(["-n", ns, "link", "set", dev, "up"]);
    }
    return pair;
  } catch (error) {
    pair.remove();
    throw error;
  }
}
