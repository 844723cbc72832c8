import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";

/** The machine-wide lock every timing-sensitive run takes (GUIDE.md). */
export const BENCH_LOCK = "/tmp/lnb-bench.lock";

export interface BenchLock {
  /** False when the wait ran out and the measurement runs unlocked. */
  locked: boolean;
  release(): void;
}

function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** True when this process or an ancestor already holds the lock (e.g. `flock LOCK npm test`). */
function heldByAncestor(): boolean {
  let inode: number;
  try {
    inode = statSync(BENCH_LOCK).ino;
  } catch {
    return false;
  }
  const holders = readFileSync("/proc/locks", "utf8")
    .split("\n")
    .filter((line) => !line.includes("->") && line.includes(`:${inode} `))
    .map((line) => Number(line.trim().split(/\s+/)[4]));
  for (let pid = process.pid; pid > 1; pid = parentPid(pid)) {
    if (holders.includes(pid)) return true;
  }
  return false;
}

/**
 * Takes the bench lock for the duration of a measurement by holding `flock` in a child process,
 * waiting at most `waitSeconds`. A lock an ancestor already holds counts as taken. When the wait
 * runs out the caller measures anyway (a long benchmark elsewhere must not fail or stall a test)
 * and a warning says so on stderr.
 */
export async function acquireBenchLock(waitSeconds: number): Promise<BenchLock> {
  const lock = await takeLock(waitSeconds);
  if (!lock.locked) {
    console.warn(`warning: ${BENCH_LOCK} not obtained within ${waitSeconds} s: measuring unlocked`);
  }
  return lock;
}

/** Runs `work` holding the bench lock (see acquireBenchLock), released however `work` ends. */
export async function withBenchLock<T>(work: () => Promise<T>, waitSeconds = 90): Promise<T> {
  const lock = await acquireBenchLock(waitSeconds);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

function takeLock(waitSeconds: number): Promise<BenchLock> {
  if (heldByAncestor()) return Promise.resolve({ locked: true, release: () => {} });
  return new Promise((resolve) => {
    const holder = spawn(
      "flock",
      ["-w", String(waitSeconds), "-o", BENCH_LOCK, "sh", "-c", "echo locked; exec cat"],
      {
        stdio: ["pipe", "pipe", "ignore"],
      },
    );
    const release = () => {
      holder.stdin?.end();
      if (holder.exitCode === null) holder.kill();
    };
    holder.stdout?.once("data", () => resolve({ locked: true, release }));
    holder.once("exit", () => resolve({ locked: false, release: () => {} }));
    holder.once("error", () => resolve({ locked: false, release: () => {} }));
  });
}
