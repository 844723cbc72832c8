import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ProbeSummary } from "../../../src/probes/probe-summary.js";
import { scriptArgv } from "../../helpers/test-script.js";

const script = new URL("./stalled-probe.ts", import.meta.url);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export interface StalledRun {
  summary: ProbeSummary;
  /** When the busy loop began, ms after the child started (null: the probe ended first). */
  stalledAtMs: number | null;
}

/** Runs one probe in its own process (after `prefix`, e.g. ip netns exec NS) with a blocked event loop. */
export function runStalledProbe(
  prefix: string[],
  event: Record<string, unknown>,
  stall: { atMs: number; forMs: number },
  timeoutMs = 60_000,
): Promise<StalledRun> {
  const args = [
    ...prefix,
    process.execPath,
    ...scriptArgv(script),
    JSON.stringify(event),
    String(stall.atMs),
    String(stall.forMs),
  ];
  return new Promise((resolve, reject) => {
    const [program, ...rest] = args;
    // own process group: a timeout kills ip netns exec and node together
    const child = spawn(program as string, rest, {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(stdout) as StalledRun);
      } catch {
        reject(new Error(`stalled probe exited ${code}: ${stderr.slice(0, 3000)} ${stdout.slice(0, 500)}`));
      }
    });
  });
}

/** Each interval's rate, bit/s, over its own measured length. */
export function intervalRates(summary: ProbeSummary): number[] {
  const { bytes, durationSeconds } = summary.samples;
  return bytes.map((b, i) => (b * 8) / (durationSeconds[i] as number));
}

/**
 * The checks of issue 10: the stall shows as one longer interval; no interval (but a last
 * sliver) is faster than the link allows; no interval of (nearly) nothing is followed by one
 * that makes up for it.
 */
export function assertHonestIntervals(
  run: StalledRun,
  linkBitsPerSecond: number,
  label: string,
  /** The probe counts what its kernel accepted for sending, with the send buffer's fill (not what crossed the link). */
  senderSide: boolean,
): void {
  const { samples } = run.summary;
  const rates = intervalRates(run.summary);
  const table = samples.bytes
    .map(
      (_, i) =>
        `${(samples.startSeconds[i] as number).toFixed(3)}+${(samples.durationSeconds[i] as number).toFixed(3)}s ${((rates[i] as number) / 1e6).toFixed(0)}`,
    )
    .join(", ");
  const detail = `${label}: stall at ${run.stalledAtMs?.toFixed(0)} ms; intervals (start+length, Mbit/s): ${table}`;
  assert.ok(run.stalledAtMs !== null, `the stall happened during the probe (${detail})`);
  assert.ok(
    samples.durationSeconds.some((seconds) => seconds >= 0.5),
    `one interval spans the stall (${detail})`,
  );
  for (let i = 1; i < samples.bytes.length; i += 1) {
    const previousEnd = (samples.startSeconds[i - 1] as number) + (samples.durationSeconds[i - 1] as number);
    assert.ok(Math.abs((samples.startSeconds[i] as number) - previousEnd) < 1e-6, `contiguous (${detail})`);
  }
  // tbf's bucket and timer jitter
  const limit = linkBitsPerSecond * 1.15;
  for (const [i, rate] of rates.entries()) {
    // A sender that counts what its kernel accepted has the initial fill of the socket send buffer
    // in its first interval, not yet on the wire (up to +19 % on 200 Mbit/s in these tests; iperf3's
    // own sender intervals share it). Our probes subtract what the kernel holds unacknowledged
    // (src/probes/unacknowledged-bytes.ts) and are checked as receivers; only where that table
    // cannot be read does the first interval get this wider bound.
    const bound = i === 0 && senderSide ? linkBitsPerSecond * 1.3 : limit;
    assert.ok(
      rate <= bound,
      `interval ${i} at ${(rate / 1e6).toFixed(0)} Mbit/s exceeds the link (${detail})`,
    );
  }
  const median = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)] as number;
  for (let i = 0; i + 1 < rates.length; i += 1) {
    const zeroThenDouble = (rates[i] as number) < median * 0.25 && (rates[i + 1] as number) > median * 1.5;
    assert.ok(!zeroThenDouble, `zero-then-double at interval ${i} (${detail})`);
  }
  console.log(detail);
}

/** Our iperf3 server in its own process (after `prefix`) with a blocked event loop; `client` runs once it listens. */
export function runStalledServer(
  prefix: string[],
  port: number,
  stall: { atMs: number; forMs: number },
  client: () => Promise<void>,
  timeoutMs = 60_000,
): Promise<StalledRun> {
  const server = new URL("./stalled-server.ts", import.meta.url);
  const args = [
    ...prefix,
    process.execPath,
    ...scriptArgv(server),
    String(port),
    String(stall.atMs),
    String(stall.forMs),
  ];
  return new Promise((resolve, reject) => {
    const [program, ...rest] = args;
    const child = spawn(program as string, rest, {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let clientStarted = false;
    let clientError: unknown;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!clientStarted && stdout.includes("listening\n")) {
        clientStarted = true;
        client().catch((error: unknown) => {
          clientError = error;
        });
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((text) => text.startsWith("{"));
      try {
        resolve(JSON.parse(line as string) as StalledRun);
      } catch {
        reject(
          new Error(
            `stalled server exited ${code}: ${String(clientError ?? "")} ${stderr.slice(0, 3000)} ${stdout.slice(0, 500)}`,
          ),
        );
      }
    });
  });
}
