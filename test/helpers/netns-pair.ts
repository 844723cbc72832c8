import { execFileSync } from "node:child_process";

/**
 * Two network namespaces joined by a veth whose both ends live inside them (never in the root
 * namespace), with 198.18.0.0/15 addresses, for tests and benchmarks that need a real,
 * shapeable link. The one helper every test and bench uses for this.
 */
export interface NetnsPair {
  serverNs: string;
  clientNs: string;
  serverAddress: string;
  clientAddress: string;
  /** Prefix for running a command inside a namespace: ["ip", "netns", "exec", NS]. */
  exec(ns: string): string[];
  /**
   * tbf on the egress of the chosen veth ends (each direction is shaped at its sender's side:
   * the client's end shapes upload, the server's end download). `null` removes the shaping.
   */
  shape(rateMbit: number | null, options?: ShapeOptions): void;
  /** Resolves once something listens on TCP `port` inside `ns` (polls `ss`, 10 s at most). */
  waitForListener(ns: string, port: number): Promise<void>;
  /** Deletes both namespaces (which removes the veth and its qdiscs); safe to call twice. */
  remove(): void;
}

export interface ShapeOptions {
  /** Which egresses to shape; default both. */
  sides?: "both" | "client" | "server";
  /** tbf burst, as tc takes it ("1mb", "256kb", or bytes); default "1mb". */
  burst?: string;
  /** tbf latency; default "20ms". */
  latency?: string;
}

const SERVER_DEV = "veth-s";
const CLIENT_DEV = "veth-c";

function ip(args: string[]): string {
  return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Deletes the pairs of `prefix` whose process is gone. A pair is removed in its test's `finally`,
 * which a process killed outright (a timeout's SIGKILL, a machine stopped mid-run) never reaches:
 * the next test with the prefix removes what such a process left.
 */
function removeStalePairs(prefix: string): void {
  const name = new RegExp(`^${prefix}(\\d+)[ab]$`);
  for (const line of ip(["netns", "list"]).split("\n")) {
    const ns = line.split(" ")[0] ?? "";
    const pid = Number(name.exec(ns)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    try {
      ip(["netns", "del", ns]);
    } catch {
      // removed meanwhile by another process's sweep
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by another user
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Creates `${prefix}${pid}a` (server side) and `${prefix}${pid}b` (client side); the prefix is
 * the caller's namespace prefix (lnbc, lnbs, ...), the PID keeps concurrent test processes apart.
 */
export function createNetnsPair(
  prefix: string,
  addresses: { serverAddress?: string; clientAddress?: string } = {},
): NetnsPair {
  removeStalePairs(prefix);
  const serverNs = `${prefix}${process.pid}a`;
  const clientNs = `${prefix}${process.pid}b`;
  const ends = [
    [serverNs, SERVER_DEV],
    [clientNs, CLIENT_DEV],
  ] as const;
  const pair: NetnsPair = {
    serverNs,
    clientNs,
    serverAddress: addresses.serverAddress ?? "198.18.1.1",
    clientAddress: addresses.clientAddress ?? "198.18.1.2",
    exec: (ns) => ["ip", "netns", "exec", ns],
    shape(rateMbit, options = {}) {
      const sides = options.sides ?? "both";
      for (const [ns, dev] of ends) {
        if (sides === "server" && ns !== serverNs) continue;
        if (sides === "client" && ns !== clientNs) continue;
        if (rateMbit === null) {
          try {
            ip(["netns", "exec", ns, "tc", "qdisc", "del", "dev", dev, "root"]);
          } catch {
            // nothing to delete
          }
          continue;
        }
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
          options.burst ?? "1mb",
          "latency",
          options.latency ?? "20ms",
        ]);
      }
    },
    async waitForListener(ns, port) {
      const deadline = Date.now() + 10_000;
      while (ip(["netns", "exec", ns, "ss", "-Htln", `sport = :${port}`]).trim() === "") {
        if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} in ${ns}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
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
    // created inside the server namespace, so the veth names never meet the root namespace's
    ip([
      "netns",
      "exec",
      serverNs,
      "ip",
      "link",
      "add",
      SERVER_DEV,
      "type",
      "veth",
      "peer",
      "name",
      CLIENT_DEV,
      "netns",
      clientNs,
    ]);
    ip(["-n", serverNs, "addr", "add", `${pair.serverAddress}/30`, "dev", SERVER_DEV]);
    ip(["-n", clientNs, "addr", "add", `${pair.clientAddress}/30`, "dev", CLIENT_DEV]);
    for (const [ns, dev] of ends) {
      ip(["-n", ns, "link", "set", "lo", "up"]);
      ip(["-n", ns, "link", "set", dev, "up"]);
    }
    return pair;
  } catch (error) {
    pair.remove();
    throw error;
  }
}
