import { existsSync } from "node:fs";
import { cgroupV1Available } from "./cgroups.js";

/**
 * Can this machine run shaped environments? Needs root, iproute2 (ip, tc), nsenter and
 * cgroup v1 cpu+memory controllers. When not, the lab runs unshaped on loopback and says why.
 */
export function unshapedReason(): string | null {
  if (process.platform !== "linux")
    return `${process.platform} has no network namespaces (the lab needs Linux)`;
  if (process.getuid?.() !== 0) return "not running as root (network namespaces, tc and cgroups need root)";
  const missing = ["ip", "tc", "nsenter", "ss"].filter((tool) => !onPath(tool));
  if (missing.length > 0) return `missing tools: ${missing.join(", ")} (install iproute2 and util-linux)`;
  if (!existsSync("/run/netns") && !existsSync("/var/run")) return "no /run for network namespaces";
  if (!cgroupV1Available()) {
    return "no cgroup v1 cpu and memory controllers at /sys/fs/cgroup/{cpu,memory} (cgroup v2-only hosts are not supported yet)";
  }
  return null;
}

export function onPath(tool: string): boolean {
  return (process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin")
    .split(":")
    .some((dir) => dir.length > 0 && existsSync(`${dir}/${tool}`));
}
