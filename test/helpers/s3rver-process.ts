import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptArgv } from "./test-script.js";

/**
 * s3rver in a process of its own, started through a command prefix (`ip netns exec NS`), so a
 * test can put it behind a real shaped link. The child (s3rver-child.ts) prints its port once
 * it listens and runs until it is killed; it is killed by PID, with its process group.
 */
export interface S3rverProcess {
  endpoint: string;
  stop(): Promise<void>;
}

const childScript = new URL("./s3rver-child.ts", import.meta.url);
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export function startS3rverProcess(
  prefix: string[],
  address: string,
  bucket: string,
): Promise<S3rverProcess> {
  const [program, ...args] = [...prefix, process.execPath, ...scriptArgv(childScript), address, bucket];
  const child = spawn(program as string, args, {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const stop = () => stopChild(child);
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`s3rver did not start within 30 s: ${stderr}`));
    }, 30_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const port = stdout.match(/^listening (\d+)$/m)?.[1];
      if (!port) return;
      clearTimeout(timer);
      resolve({ endpoint: `http://${address}:${port}`, stop });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited (${code}) before listening: ${stderr}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const killed = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, 5_000);
  await exited;
  clearTimeout(killed);
}
