import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Which Node runs the agent in the lab. Lambda runs the agent on `nodejs22.x`, while the CLI may
 * run on Node 20: the lab uses Node 22 where it is installed, so the bundle is exercised on the
 * major it ships to. `LAMBDA_NETBENCH_AGENT_NODE` names a Node binary; otherwise the one
 * scripts/setup.sh installs; otherwise the Node running the CLI (and the facts say so).
 */
export const NODE22_CACHE_BINARY = "/var/cache/lambda-netbench/node22/bin/node";

export interface AgentNode {
  path: string;
  /** `process.version` of that binary, e.g. "v22.23.5". */
  version: string;
  source: "LAMBDA_NETBENCH_AGENT_NODE" | "node22 cache" | "the CLI's own Node";
}

let resolved: AgentNode | null = null;

export function agentNode(): AgentNode {
  resolved ??= resolveAgentNode();
  return resolved;
}

function resolveAgentNode(): AgentNode {
  const named = process.env.LAMBDA_NETBENCH_AGENT_NODE;
  if (named) {
    // a named binary that does not run is a setup mistake: say so instead of falling back
    if (!existsSync(named))
      throw new Error(`LAMBDA_NETBENCH_AGENT_NODE: ${named} does not exist (allowed: a Node binary)`);
    return { path: named, version: versionOf(named), source: "LAMBDA_NETBENCH_AGENT_NODE" };
  }
  if (existsSync(NODE22_CACHE_BINARY))
    return { path: NODE22_CACHE_BINARY, version: versionOf(NODE22_CACHE_BINARY), source: "node22 cache" };
  return { path: process.execPath, version: process.version, source: "the CLI's own Node" };
}

function versionOf(binary: string): string {
  return execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 }).trim();
}
