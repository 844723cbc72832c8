import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Built files the lab runs (from src/ via tsx or from dist/, this file sits three levels
 * below the package root): the agent bundle deployed to Lambda, the lab's runtime shim,
 * and the CLI (for our iperf3 server).
 */
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const AGENT_BUNDLE = join(packageRoot, "dist", "agent", "index.mjs");
export const AGENT_RUNTIME = join(packageRoot, "dist", "platforms", "local", "agent-runtime.js");
export const CLI_ENTRY = join(packageRoot, "bin", "lambda-netbench.js");
const CLI_MAIN = join(packageRoot, "dist", "cli", "main.js");

export function checkBuilt(): void {
  for (const file of [AGENT_BUNDLE, AGENT_RUNTIME, CLI_MAIN]) {
    if (!existsSync(file)) throw new Error(`lab: ${file} is missing; run \`npm run build\` first`);
  }
}

/** The lab S3 server's control process (see object-store.ts). */
export const S3_CONTROL_SERVER = join(
  packageRoot,
  "dist",
  "platforms",
  "local",
  "s3-server",
  "server-main.js",
);
