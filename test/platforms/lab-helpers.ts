import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Builds dist/ (agent bundle + runtime shim) when it is missing or older than the sources. */
export function ensureBuilt(): void {
  const bundle = "dist/agent/index.mjs";
  const runtime = "dist/platforms/local/agent-runtime.js";
  const newestSource = newestMtime("src");
  if (existsSync(bundle) && existsSync(runtime) && statSync(bundle).mtimeMs >= newestSource) return;
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("npm run build failed");
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Holds the machine-wide benchmark lock (/tmp/lnb-bench.lock, the one `flock` users take)
 * while `work` runs, so timing-sensitive checks do not overlap other measurements. Waits at
 * most `waitSeconds`: a lock held for longer (a stuck process of someone else) must not hang
 * the suite, so the work then runs unlocked, with a warning.
 */
export async function withBenchLock<T>(work: () => Promise<T>, waitSeconds = 90): Promise<T> {
  // -o: the lock stays with flock itself; `cat` ends when we close its stdin (or when we die)
  const holder = spawn(
    "flock",
    ["-o", "-w", `${waitSeconds}`, "/tmp/lnb-bench.lock", "sh", "-c", "echo locked; exec cat"],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const locked = await new Promise<boolean>((resolve) => {
    holder.stdout.once("data", () => resolve(true));
    holder.once("exit", () => resolve(false));
  });
  if (!locked)
    console.error(`warning: /tmp/lnb-bench.lock still held after ${waitSeconds} s; measuring unlocked`);
  try {
    return await work();
  } finally {
    holder.stdin.end();
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
