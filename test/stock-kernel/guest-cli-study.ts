/**
 * The guest study's first part, through the real CLI as a user runs it: `lab up` with the
 * custom profile, `run` of the study while the lab is watched, then `lab down` and what it left.
 */
import { readdirSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Json,
  keepingLabLogs,
  labState,
  log,
  printLabLogs,
  run,
  watchLab,
} from "./guest-observation.js";
import {
  customProfile,
  type GuestReport,
  MEMORY_MB,
  PROFILE_NAME,
  type StudyRecord,
} from "./guest-report.js";

// --- the CLI study ------------------------------------------------------------------------------

/**
 * lab up, the study with the CLI, then (while the same lab is up) `whileUp`, then lab down.
 * One lab for everything: under TCG every server and agent start costs minutes (a second,
 * private lab took 4.5 min to open on a loaded host).
 */
export async function cliStudy(
  repo: string,
  report: GuestReport,
  whileUp: (labName: string) => Promise<void>,
): Promise<void> {
  const work = "/tmp/lnb-stock-kernel";
  await mkdir(join(work, "runs"), { recursive: true });
  const planPath = join(work, "plan.json");
  await writeFile(
    planPath,
    JSON.stringify(
      {
        name: "stock-kernel",
        targets: [{ platform: "local", profile: PROFILE_NAME }],
        memoryMb: [MEMORY_MB],
        architectures: [process.arch === "x64" ? "x86_64" : "arm64"],
        repetitions: 1,
        probes: [
          { kind: "iperf3", direction: "upload", timeSeconds: 6, omitSeconds: 1, parallel: 2 },
          { kind: "iperf3", direction: "download", timeSeconds: 6, omitSeconds: 1, parallel: 2 },
          { kind: "s3-get", objectMib: 8, concurrency: 1, chunkMib: 8 },
          // few requests: each new connection's TLS handshake costs the emulated CPUs dearly
          { kind: "latency", bytes: 65_536, requests: 15, warmupRequests: 1, iperf3Connects: 15 },
          { kind: "info" },
        ],
        profiles: [customProfile],
      },
      null,
      2,
    ),
  );
  const cli = join(repo, "bin", "lambda-netbench.js");
  const before = labState("lnblab");
  const beforeRunFiles = readdirSync("/run").sort();
  log(`lab up --config ${planPath} --profile ${PROFILE_NAME} --environments 1`);
  report.labUp = await keepingLabLogs(report.labLogs, () =>
    run(
      "node",
      // one environment: the study runs one invocation at a time, and every server started costs minutes under TCG
      // the stock iperf3 server: the C server costs the emulated CPUs far less than Node, and the
      // checks compare our client with stock iperf3's against the same server
      [
        cli,
        "lab",
        "up",
        "--config",
        planPath,
        "--lab-profile",
        PROFILE_NAME,
        "--environments",
        "1",
        "--iperf3-server",
        "stock",
      ],
      600,
    ),
  );
  log(
    `lab up: exit ${report.labUp.exitCode} in ${report.labUp.seconds.toFixed(0)} s\n${report.labUp.outputTail}`,
  );
  if (report.labUp.exitCode !== 0) printLabLogs(report.labLogs);
  try {
    log("run --config (the study)");
    report.run = await watchLab("lnblab", report.cpuMaxSeen, report.qdiscsSeen, report.labLogs, () =>
      run("node", [cli, "run", "--config", planPath, "--out", join(work, "runs")], 900),
    );
    log(`run: exit ${report.run.exitCode} in ${report.run.seconds.toFixed(0)} s\n${report.run.outputTail}`);
    if (report.run.exitCode !== 0) printLabLogs(report.labLogs);
    const [runName] = await readdir(join(work, "runs"));
    if (runName) {
      const runDir = join(work, "runs", runName);
      const manifest = JSON.parse(await readFile(join(runDir, "manifest.json"), "utf8")) as {
        platforms: Record<string, { unshaped: boolean; quotaBitsPerSecond: number | null; details: Json }>;
      };
      report.manifestPlatform = manifest.platforms[`local:${PROFILE_NAME}`] ?? null;
      const lines = (await readFile(join(runDir, "results.jsonl"), "utf8")).split("\n").filter(Boolean);
      report.records = lines
        .map((line) => JSON.parse(line) as Json)
        .filter((record) => record.warmup !== true)
        .map((record) => ({
          probe: String(record.probe),
          probeLabel: String(record.probeLabel),
          direction: (record.direction as string | null) ?? null,
          ok: record.ok === true,
          megabitsPerSecond: (record.megabitsPerSecond as number | null) ?? null,
          receivedMegabitsPerSecond: receivedMegabitsPerSecond(record),
          error: (record.error as StudyRecord["error"]) ?? null,
          detail: record.detail ?? null,
          latency: record.latency ?? null,
          sides: {
            sent: record.sent ?? null,
            received: record.received ?? null,
            cpuSeconds: record.cpuSeconds ?? null,
            serverCpu: record.serverCpu ?? null,
          },
        }));
    } else {
      report.errors.push("run wrote no run directory");
    }
    await whileUp("lnblab");
  } finally {
    log("lab down");
    report.labDown = await run("node", [cli, "lab", "down"], 300);
    log(`lab down: exit ${report.labDown.exitCode}\n${report.labDown.outputTail}`);
    const after = labState("lnblab");
    const beforeProcesses = new Set(before.processes.map((line) => line.replace(/^\d+ /, "")));
    report.leftAfterLabDown = {
      namespaces: after.namespaces.filter((name) => !before.namespaces.includes(name)),
      cgroups: after.cgroups.filter((dir) => !before.cgroups.includes(dir)),
      processes: after.processes.filter((line) => !beforeProcesses.has(line.replace(/^\d+ /, ""))),
      // /run/netns is iproute2's own directory: the first `ip netns add` makes it, nothing removes it
      runFiles: readdirSync("/run")
        .sort()
        .filter((name) => !beforeRunFiles.includes(name) && name !== "netns"),
    };
  }
}

export function receivedMegabitsPerSecond(record: Json): number | null {
  const received = record.received as { bitsPerSecond?: unknown } | undefined;
  return typeof received?.bitsPerSecond === "number" ? received.bitsPerSecond / 1e6 : null;
}
