import { spawn } from "node:child_process";

export const BENCH_LOCK = "/tmp/lnb-bench.lock";

/**
 * Holds the machine-wide benchmark lock (flock on /tmp/lnb-bench.lock) in a child process
 * while a timing-sensitive measurement runs. Waits at most `waitSeconds`; when someone else
 * holds it longer, it returns `held: false` and the caller measures anyway (and says so), so
 * a long benchmark elsewhere cannot fail or stall a test. `release` kills the holder by PID.
 */
export async function acquireBenchLock(waitSeconds: number): Promise<{ held: boolean; release: () => void }> {
  const holder = spawn(
    "flock",
    ["-w", String(waitSeconds), BENCH_LOCK, "sh", "-c", "echo locked; exec sleep 3600"],
    {
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    },
  );
  const release = () => {
    if (holder.exitCode === null && holder.pid) {
      try {
        process.kill(-holder.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  const held = await new Promise<boolean>((resolve) => {
    holder.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve(true);
    });
    holder.once("exit", () => resolve(false));
  });
  return { held, release };
}
