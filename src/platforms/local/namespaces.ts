import { runCommand } from "./run-command.js";

/** Network namespaces and the veth links between them (iproute2). */

export async function listNamespaces(): Promise<string[]> {
  const { stdout } = await runCommand("ip", ["netns", "list"]);
  return stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/)[0] ?? "")
    .filter((name) => name.length > 0);
}

export async function createNamespace(name: string): Promise<void> {
  await runCommand("ip", ["netns", "add", name]);
  await runCommand("ip", ["-n", name, "link", "set", "lo", "up"]);
}

/** PIDs of the processes inside a namespace. */
export async function namespacePids(name: string): Promise<number[]> {
  const { stdout } = await runCommand("ip", ["netns", "pids", name], { allowFailure: true });
  return stdout
    .split("\n")
    .map((line) => Number(line.trim()))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Kills what still runs inside the namespace, then deletes it. */
export async function deleteNamespace(name: string): Promise<void> {
  for (const pid of await namespacePids(name)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await runCommand("ip", ["netns", "delete", name], { allowFailure: true });
}

export async function addAddress(namespace: string, device: string, cidr: string): Promise<void> {
  await runCommand("ip", ["-n", namespace, "address", "add", cidr, "dev", device]);
}

/**
 * A veth pair created directly inside the two namespaces (never in the root namespace, so
 * names and addresses cannot collide with anything else on the machine), both ends up.
 */
export async function createVethPair(
  first: { namespace: string; device: string; cidr: string },
  second: { namespace: string; device: string; cidr: string },
): Promise<void> {
  await runCommand("ip", [
    "link",
    "add",
    first.device,
    "netns",
    first.namespace,
    "type",
    "veth",
    "peer",
    "name",
    second.device,
    "netns",
    second.namespace,
  ]);
  for (const end of [first, second]) {
    await addAddress(end.namespace, end.device, end.cidr);
    await runCommand("ip", ["-n", end.namespace, "link", "set", end.device, "up"]);
  }
}

export async function addDefaultRoute(namespace: string, via: string): Promise<void> {
  await runCommand("ip", ["-n", namespace, "route", "replace", "default", "via", via]);
}

/** Arguments that run a command inside a namespace without remounting /sys (cgroups stay visible). */
export function inNamespace(namespace: string | null, file: string, args: string[]): [string, string[]] {
  if (namespace === null) return [file, args];
  return ["nsenter", [`--net=/run/netns/${namespace}`, "--", file, ...args]];
}
