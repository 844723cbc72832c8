import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { test } from "node:test";
import { cliArgv, listeningPort } from "../helpers/cli-process.js";
import { runStockClient } from "./iperf3-support/stock-client.js";

function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, cliArgv(args), { timeout: 30_000 }, (error, _out, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

test("iperf3-server --one-off on port 0: logs its port, serves one test, logs it and exits 0", async () => {
  const child = spawn(
    process.execPath,
    cliArgv(["iperf3-server", "--port", "0", "--bind", "127.0.0.1", "--one-off"]),
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  try {
    const { port, log } = await listeningPort(child, "127.0.0.1");
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const report = await runStockClient("127.0.0.1", port, ["-t", "1", "-P", "2"]);
    assert.equal(report.error, undefined);
    assert.equal(await exited, 0);
    const stderr = log();
    assert.match(
      stderr,
      /test from 127\.0\.0\.1:\d+: normal \(client sends\), 2 stream\(s\), [\d.]+ s: received \d+ bytes = [\d.]+ Mbit\/s/,
    );
    assert.match(stderr, /stopping: one test served/);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

test("iperf3-server refuses bad options with the option named", async () => {
  const port = await cli(["iperf3-server", "--port", "70000"]);
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--port must be an integer in 0\.\.65535/);
  const half = await cli(["iperf3-server", "--port", "0", "--rsa-private-key-path", "/etc/hostname"]);
  assert.notEqual(half.code, 0);
  assert.match(half.stderr, /--rsa-private-key-path and --authorized-users-path must be given together/);
});
