/**
 * Is the lab's S3 server the bottleneck? One environment with an unshaped link (a custom
 * profile at 100 Gbit/s, no burst, no per-connection cap; 10,240 MB = 2 cores) downloads a
 * 1 GiB object over HTTPS with N parallel ranged GETs (curl with the lab's CA), through
 * nginx serving s3rver's files (the lab's path) and, for comparison, through s3rver itself
 * (a query parameter routes the GET to s3rver). Runs alternate; medians of 3.
 * Needs root. Run: flock /tmp/lnb-bench.lock npm run bench -- lab-s3
 */
import { readFileSync } from "node:fs";
import { removeLab } from "../src/platforms/local/cleanup.js";
import { privateLabName } from "../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../src/platforms/local/local-platform.js";
import { ensureBuilt, median } from "../test/platforms/lab-helpers.js";

const OBJECT_BYTES = 1024 * 1_048_576;
const MEMORY_MB = 10_240;
const RUNS = 3;
const unlimited = {
  name: "bench-unlimited",
  description: "no shaping to speak of: 100 Gbit/s both ways, no burst, no S3 per-connection cap",
  download: [{ memoryMb: 128, megabitsPerSecond: 100_000 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 100_000 }],
};

ensureBuilt();
const labName = privateLabName();
const platform = await LocalPlatform.open({
  profile: unlimited.name,
  customProfiles: [unlimited],
  labName,
  environments: 1,
  mode: "shaped",
});
try {
  await platform.prepare([{ memoryMb: MEMORY_MB, arch: process.arch === "x64" ? "x86_64" : "arm64" }]);
  const s3 = platform.endpoints().s3;
  const ca = platform.lab.s3.caFile;
  const url = `${s3?.endpoint}/${s3?.bucket}/bench-1gib`;
  // the object goes in through the S3 API (PUT to s3rver via nginx), not by copying files
  const put = await platform.execInEnvironment(
    MEMORY_MB,
    "sh",
    ["-c", `head -c ${OBJECT_BYTES} /dev/urandom | curl -sS --fail --cacert ${ca} -X PUT -T - '${url}'`],
    600,
  );
  if (put.exitCode !== 0) throw new Error(`PUT failed: ${put.stderr}`);

  const download = async (connections: number, query: string) => {
    const part = Math.ceil(OBJECT_BYTES / connections);
    const curls = Array.from({ length: connections }, (_, i) => {
      const first = i * part;
      const last = Math.min(OBJECT_BYTES, first + part) - 1;
      return `(curl -sS --fail --cacert ${ca} -r ${first}-${last} -o /dev/null '${url}${query}' || echo FAILED) &`;
    }).join(" ");
    const script = `start=$(date +%s.%N); ${curls} wait; end=$(date +%s.%N); echo "$start $end"`;
    const run = await platform.execInEnvironment(MEMORY_MB, "sh", ["-c", script], 300);
    if (run.exitCode !== 0 || run.stdout.includes("FAILED"))
      throw new Error(`download failed: ${run.stderr}`);
    const [start, end] = run.stdout.trim().split(" ").map(Number);
    return (OBJECT_BYTES * 8) / ((end ?? 0) - (start ?? 0));
  };
  // CPU seconds of the server side (nginx workers, s3rver) per GiB served
  const serverPids = () => {
    const nginx = platform.lab.processes.find((p) => p.role === "nginx")?.pid;
    const s3rver = platform.lab.processes.find((p) => p.role === "s3rver")?.pid;
    const workers = readFileSync(`/proc/${nginx}/task/${nginx}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    return [...workers, s3rver ?? 0];
  };
  const cpuSeconds = () =>
    serverPids().reduce((sum, pid) => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return sum + (Number(fields[11]) + Number(fields[12])) / 100;
    }, 0);

  const cases = [
    { name: "nginx from s3rver's files, 1 connection", connections: 1, query: "" },
    { name: "nginx from s3rver's files, 4 connections", connections: 4, query: "" },
    { name: "nginx from s3rver's files, 8 connections", connections: 8, query: "" },
    {
      name: "through s3rver (nginx TLS + proxy), 8 connections",
      connections: 8,
      // any query string other than x-id=GetObject routes the GET to s3rver
      query: "?versionId=null",
    },
  ];
  const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const serverCpu = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let run = 0; run < RUNS; run += 1) {
    for (const c of cases) {
      const before = cpuSeconds();
      results.get(c.name)?.push(await download(c.connections, c.query));
      serverCpu.get(c.name)?.push((cpuSeconds() - before) / (OBJECT_BYTES / 2 ** 30));
    }
  }
  console.log(
    `lab S3 over HTTPS, 1 GiB object, one environment (${MEMORY_MB} MB, link unshaped), ${RUNS} alternating runs`,
  );
  console.log("| path | median Gbit/s | min | max | server CPU s/GiB (median) |");
  console.log("|---|---|---|---|---|");
  for (const c of cases) {
    const values = results.get(c.name) ?? [];
    const gbps = (v: number) => (v / 1e9).toFixed(2);
    console.log(
      `| ${c.name} | ${gbps(median(values))} | ${gbps(Math.min(...values))} | ${gbps(Math.max(...values))} |`,
    );
  }
} finally {
  await platform.dispose();
  await removeLab(labName);
}
