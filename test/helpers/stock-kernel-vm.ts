import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Runs commands inside a QEMU guest booting Debian 12's own kernel (scripts/stock-kernel-vm.sh):
 * cgroup v2 only, netem and veth as modules, this machine's root read-only, tmpfs where a system
 * writes. The script does the work (and guarantees QEMU's clean-up); this is its test-side
 * wrapper.
 */
export const STOCK_KERNEL_VM_SCRIPT = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "scripts",
  "stock-kernel-vm.sh",
);

/** Why the VM cannot run on this machine, or null when it can. */
export function stockKernelVmUnavailable(): string | null {
  const check = spawnSync(STOCK_KERNEL_VM_SCRIPT, ["--check"], { encoding: "utf8" });
  if (check.status === 0) return null;
  return (check.stderr || check.error?.message || `exit ${check.status}`).trim();
}

/** Taken around every VM run: two TCG guests at once would each get half the cores and time out. */
export const VM_LOCK = "/tmp/lnb-vm.lock";

/**
 * Holds VM_LOCK (the lock docs/stock-kernel-vm.md tells people to take with `flock`) in a child `flock`,
 * waiting at most `waitSeconds`; past that the VM runs unlocked, with a warning. Returns the
 * release function.
 */
export function takeVmLock(waitSeconds: number): Promise<() => void> {
  return new Promise((resolve) => {
    const holder = spawn(
      "flock",
      ["-o", "-w", String(waitSeconds), VM_LOCK, "sh", "-c", "echo locked; exec cat"],
      {
        stdio: ["pipe", "pipe", "ignore"],
      },
    );
    let locked = false;
    const release = () => {
      holder.stdin?.end();
      if (holder.exitCode === null) holder.kill();
    };
    holder.stdout?.once("data", () => {
      locked = true;
      resolve(release);
    });
    holder.once("exit", () => {
      // the holder also exits when released: only an exit before the lock was held is a timeout
      if (locked) return;
      console.warn(`warning: ${VM_LOCK} not obtained within ${waitSeconds} s: running the VM unlocked`);
      resolve(() => {});
    });
  });
}

export interface StockKernelVmOptions {
  /** Directory the command starts in, inside the guest (the host's /work is visible there). */
  cwd: string;
  /** The command and its arguments, run without a shell unless you pass one. */
  command: string[];
  /** Hard limit for the whole VM, boot included. */
  timeoutSeconds: number;
  memoryMb?: number;
  cpus?: number;
  /** Host directories the guest may write, each at its own path (results come out this way). */
  shareReadWrite?: string[];
  env?: Record<string, string>;
  /** Each chunk of the guest command's output as it arrives (stdout and stderr merged). */
  onOutput?: (chunk: string) => void;
}

export interface StockKernelVmResult {
  /** The command's exit status; 124 when the VM timed out, 125 when the VM itself failed. */
  exitCode: number;
  /** The guest command's stdout and stderr, merged. */
  output: string;
  /** The harness's own messages (fetching the kernel, VM failures with the console's tail). */
  harnessStderr: string;
  elapsedSeconds: number;
}

export function runInStockKernelVm(options: StockKernelVmOptions): Promise<StockKernelVmResult> {
  const args = ["--cwd", options.cwd, "--timeout", String(options.timeoutSeconds)];
  if (options.memoryMb !== undefined) args.push("--memory", String(options.memoryMb));
  if (options.cpus !== undefined) args.push("--cpus", String(options.cpus));
  for (const dir of options.shareReadWrite ?? []) args.push("--share-rw", dir);
  for (const [name, value] of Object.entries(options.env ?? {})) args.push("--env", `${name}=${value}`);
  args.push("--", ...options.command);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(STOCK_KERNEL_VM_SCRIPT, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let harnessStderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      options.onOutput?.(chunk);
    });
    child.stderr.on("data", (chunk: string) => {
      harnessStderr += chunk;
    });
    // If this process is told to stop, the harness must stop its QEMU (it kills it by PID).
    const stopChild = () => child.kill("SIGTERM");
    process.once("exit", stopChild);
    child.once("error", (error) => {
      process.off("exit", stopChild);
      reject(error);
    });
    child.once("close", (code, signal) => {
      process.off("exit", stopChild);
      resolve({
        exitCode: code ?? 128 + (signal === "SIGKILL" ? 9 : 15),
        output,
        harnessStderr,
        elapsedSeconds: (Date.now() - started) / 1000,
      });
    });
  });
}
