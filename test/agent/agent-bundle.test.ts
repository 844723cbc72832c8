import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Iperf3Server, startIperf3Server } from "../../src/probes/iperf3/server.js";

// The Lambda bundle must run with nothing but itself on disk: build it, copy dist/agent/index.mjs
// alone into an empty directory, and call its handler from a fresh Node process there.
let bundleDir: string;
let server: Iperf3Server;

before(async () => {
  // the bundle alone (esbuild, from the sources): a whole `npm run build` (tsc) at nice 19 beside a
  // busy loop ran past 180 s (2026-12-04)
  execFileSync(process.execPath, ["scripts/bundle-agent.mjs"], { stdio: "pipe", timeout: 180_000 });
  bundleDir = mkdtempSync(join(tmpdir(), "lnb-bundle-"));
  copyFileSync(join("dist", "agent", "index.mjs"), join(bundleDir, "index.mjs"));
  server = await startIperf3Server({ port: 0, host: "127.0.0.1" });
});
after(async () => {
  await server?.close();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

/** Invokes the bundled handler with `event` in a fresh `node -e` run inside the bundle's directory. */
function invokeBundle(event: unknown): Promise<Record<string, unknown>> {
  const script =
    'const { handler } = await import("./index.mjs");' +
    "const response = await handler(JSON.parse(process.argv[1]));" +
    "process.stdout.write(JSON.stringify(response));";
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script, JSON.stringify(event)],
      { cwd: bundleDir, timeout: 60_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as Record<string, unknown>);
        } catch {
          reject(new Error(`bundle run failed: ${error?.message ?? ""} ${stderr}`));
        }
      },
    );
  });
}

test("the bundle is the only file in its directory", () => {
  assert.deepEqual(readdirSync(bundleDir), ["index.mjs"]);
});

test("bundled handler: info probe answers with the environment's fields", async () => {
  const response = await invokeBundle({ probe: "info" });
  assert.equal(response.ok, true, JSON.stringify(response));
  const detail = response.detail as Record<string, unknown>;
  assert.equal(typeof detail.environmentId, "string");
  assert.ok((detail.memoryLimitMb as number) > 0);
  assert.ok((detail.vcpus as number) >= 1);
  assert.match(detail.nodeVersion as string, /^v\d+\./);
  assert.match(detail.arch as string, /^(x86_64|arm64)$/);
  assert.equal(typeof detail.kernel, "string");
  const invocation = response.invocation as Record<string, unknown>;
  assert.equal(invocation.cold, true);
});

test("bundled handler: a bad event is refused with the field named", async () => {
  const response = await invokeBundle({ probe: "iperf3", host: "127.0.0.1", parallel: 0 });
  assert.equal(response.ok, false);
  const error = response.error as { kind: string; message: string };
  assert.equal(error.kind, "invalid-input");
  assert.match(error.message, /parallel/);
});

test("bundled handler: iperf3 probe against our TypeScript server", async () => {
  const response = await invokeBundle({
    probe: "iperf3",
    host: "127.0.0.1",
    port: server.port,
    timeSeconds: 1,
  });
  assert.equal(response.ok, true, JSON.stringify(response));
  const summary = response.summary as { bytes: number; bitsPerSecond: number } | null;
  assert.ok(summary && summary.bytes > 0 && summary.bitsPerSecond > 0, JSON.stringify(summary));
});
