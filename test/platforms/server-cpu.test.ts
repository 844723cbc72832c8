import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import {
  parseStat,
  processTreeCpuSeconds,
  serverProcessesFor,
} from "../../src/platforms/local/server-cpu.js";
import type { LabState } from "../../src/platforms/local/state-file.js";

test("parseStat reads ppid, utime and stime past a command name with spaces and parentheses", () => {
  const line = "4242 (node (x) y) S 17 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 11 0 123456 0 0\n";
  assert.deepEqual(parseStat(line), { pid: 4242, ppid: 17, ticks: 325 });
  assert.equal(parseStat("garbage"), null);
});

test("a process tree's CPU counts its live children (as nginx's workers are)", async () => {
  // a child that burns 0.3 s of CPU (its own clock, not the wall's: at nice 19 beside the
  // measuring files a 300 ms busy loop got 0.09 s), says so, then sleeps so it is still alive
  // when counted
  const child = spawn(
    process.execPath,
    [
      "-e",
      "const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };" +
        " while (used() < 0.3) {} console.log('burned'); setTimeout(() => {}, 30000);",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const burned = new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the child exited (${code}) before burning`)));
  });
  try {
    await burned;
    const childAlone = await processTreeCpuSeconds([child.pid as number]);
    // our own CPU before the tree is read: reading every /proc/PID/stat costs CPU of its own,
    // which taken after it made `own` run ahead of the tree's figure (0.77 < 0.55 + 0.30 - 0.05,
    // beside a busy loop, 2026-12-07 09:57)
    const usage = process.cpuUsage();
    const own = (usage.user + usage.system) / 1e6;
    const tree = await processTreeCpuSeconds([process.pid]);
    assert.ok(childAlone >= 0.1, `the child burned CPU (${childAlone} s)`);
    // our own CPU as /proc counts it (10 ms ticks) plus the child's
    assert.ok(tree >= own + childAlone - 0.05, `tree ${tree} s, own ${own} s, child ${childAlone} s`);
  } finally {
    child.kill("SIGKILL");
  }
});

test("an invocation's server: the iperf3 server on its port (one core), or the S3 side (the host's cores)", () => {
  const state = {
    iperf3: {
      host: "198.18.0.1",
      ports: [5201, 5202],
      server: "lambda-netbench iperf3-server (ours, TypeScript)",
    },
    processes: [
      { role: "iperf3-server:5201", pid: 11, startTicks: 1 },
      { role: "iperf3-server:5202", pid: 12, startTicks: 1 },
      { role: "s3-control", pid: 13, startTicks: 1 },
      { role: "nginx", pid: 14, startTicks: 1 },
    ],
    hostCores: 2,
  } as unknown as LabState;
  const iperf3 = serverProcessesFor(state, {
    probe: "iperf3",
    host: "198.18.0.1",
    port: 5202,
  } as Parameters<typeof serverProcessesFor>[1]);
  assert.deepEqual(iperf3?.pids, [12]);
  assert.equal(iperf3?.capacityCores, 1);
  assert.match(iperf3?.server ?? "", /iperf3 server :5202/);
  const s3 = serverProcessesFor(state, { probe: "s3-get" } as Parameters<typeof serverProcessesFor>[1]);
  assert.deepEqual(s3?.pids.sort(), [13, 14]);
  assert.equal(s3?.capacityCores, 2);
  assert.equal(
    serverProcessesFor(state, { probe: "info" } as Parameters<typeof serverProcessesFor>[1]),
    null,
  );
});
