/**
 * Is the lab's S3 server the bottleneck? One environment with an unshaped link (a custom
 * profile at 100 Gbit/s, no burst, no per-connection cap; 10,240 MB = 2 cores) downloads a
 * 1 GiB object (seeded by the s3-put probe) over HTTPS with N parallel ranged GETs: curl with
 * the lab's CA, and our s3-get probe run by the agent; and, for comparison, through our
 * control server (a query parameter routes the GET there). Uploads: 8 curl PUTs of 128 MiB
 * at once, and our s3-put probe (1 GiB, 64 MiB parts, 8 at once). Runs alternate; medians of
 * 3; server CPU seconds per GiB (nginx workers and our control server).
 * Needs root. Run: flock /tmp/lnb-bench.lock npm run bench -- lab-s3
 */
import { randomFillSync } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { labProfileSchema } from "../src/plan/lab-profile.js";
import { removeLab } from "../src/platforms/local/cleanup.js";
import { privateLabName } from "../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../src/platforms/local/local-platform.js";
import { ensureBuilt, median } from "../test/platforms/lab-helpers.js";

const OBJECT_BYTES = 1024 * 1_048_576;
const MEMORY_MB = 10_240;
const RUNS = 3;
const unlimited = labProfileSchema.parse({
  name: "bench-unlimited",
  description: "no shaping to speak of: 100 Gbit/s both ways, no burst, no S3 per-connection cap",
  download: [{ memoryMb: 128, megabitsPerSecond: 100_000 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 100_000 }],
});

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
  // the object goes in through the agent's s3-put probe (ensureTestObject), not by copying files
  const key = await platform.ensureTestObject(OBJECT_BYTES);
  const url = `${s3?.endpoint}/${s3?.bucket}/${key}`;

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
    const control = platform.lab.processes.find((p) => p.role === "s3-control")?.pid;
    const workers = readFileSync(`/proc/${nginx}/task/${nginx}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    return [...workers, control ?? 0];
  };
  const cpuSeconds = () =>
    serverPids().reduce((sum, pid) => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return sum + (Number(fields[11]) + Number(fields[12])) / 100;
    }, 0);

  const cases = [
    { name: "nginx from the object files, 1 connection", connections: 1, query: "" },
    { name: "nginx from the object files, 4 connections", connections: 4, query: "" },
    { name: "nginx from the object files, 8 connections", connections: 8, query: "" },
    {
      name: "through our control server (nginx TLS + proxy), 8 connections",
      connections: 8,
      // any query string other than x-id=GetObject routes the GET to the control server
      query: "?versionId=null",
    },
  ];
  // uploads: curl PUTs of a file of random bytes (made once, outside the timed part)
  const PUT_FILE = "/tmp/lnb-bench-put-128mib.bin";
  if (!existsSync(PUT_FILE)) writeFileSync(PUT_FILE, randomFillSync(Buffer.alloc(128 * 1_048_576)));
  const upload = async () => {
    const curls = Array.from(
      { length: 8 },
      (_, i) =>
        `(curl -sS --fail --cacert ${ca} -H 'Expect:' -X PUT --data-binary @${PUT_FILE} -o /dev/null '${s3?.endpoint}/${s3?.bucket}/bench/put-${i}' || echo FAILED) &`,
    ).join(" ");
    const script = `start=$(date +%s.%N); ${curls} wait; end=$(date +%s.%N); echo "$start $end"`;
    const run = await platform.execInEnvironment(MEMORY_MB, "sh", ["-c", script], 300);
    if (run.exitCode !== 0 || run.stdout.includes("FAILED")) throw new Error(`upload failed: ${run.stderr}`);
    const [start, end] = run.stdout.trim().split(" ").map(Number);
    return (OBJECT_BYTES * 8) / ((end ?? 0) - (start ?? 0));
  };
  const s3Put = async () => {
    const outcome = await platform.invoke(
      { memoryMb: MEMORY_MB, arch: process.arch === "x64" ? "x86_64" : "arm64" },
      {
        probe: "s3-put",
        endpoint: s3?.endpoint,
        bucket: s3?.bucket ?? "",
        key: "bench/s3-put",
        pathStyle: true,
        caPem: s3?.caPem,
        sizeMib: 1024,
        partMib: 64,
        concurrency: 8,
      },
    );
    if (!outcome.response?.ok)
      throw new Error(`s3-put failed: ${JSON.stringify(outcome.failure ?? outcome.response)}`);
    return outcome.response.summary?.bitsPerSecond ?? 0;
  };
  // our s3-get probe as the client (run by the agent in the environment, as on Lambda)
  const probeCase = "s3-get probe (agent in the environment), 8 connections, 16 MiB chunks";
  const s3Get = async () => {
    const outcome = await platform.invoke(
      { memoryMb: MEMORY_MB, arch: process.arch === "x64" ? "x86_64" : "arm64" },
      {
        probe: "s3-get",
        endpoint: s3?.endpoint,
        bucket: s3?.bucket ?? "",
        key,
        pathStyle: true,
        caPem: s3?.caPem,
        concurrency: 8,
        chunkMib: 16,
      },
    );
    if (!outcome.response?.ok)
      throw new Error(`s3-get failed: ${JSON.stringify(outcome.failure ?? outcome.response)}`);
    return outcome.response.summary?.bitsPerSecond ?? 0;
  };
  cases.push({ name: probeCase, connections: 8, query: "probe" });
  cases.push({ name: "UPLOAD: curl, 8 PUTs of 128 MiB at once", connections: 8, query: "put" });
  cases.push({
    name: "UPLOAD: s3-put probe (agent), 1 GiB, 64 MiB parts, 8 at once",
    connections: 8,
    query: "s3-put",
  });
  const measure = (query: string, connections: number) =>
    query === "probe"
      ? s3Get()
      : query === "put"
        ? upload()
        : query === "s3-put"
          ? s3Put()
          : download(connections, query);
  const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  const serverCpu = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let run = 0; run < RUNS; run += 1) {
    for (const c of cases) {
      const before = cpuSeconds();
      results.get(c.name)?.push(await measure(c.query, c.connections));
      serverCpu.get(c.name)?.push((cpuSeconds() - before) / (OBJECT_BYTES / 2 ** 30));
    }
  }
  console.log(
    `${new Date().toISOString()}, ${os.cpus()[0]?.model} x${os.availableParallelism()}, kernel ${os.release()}, node ${process.version}`,
  );
  console.log(
    `lab S3 over HTTPS, 1 GiB object, one environment (${MEMORY_MB} MB, link unshaped), ${RUNS} alternating runs`,
  );
  console.log("| path | median Gbit/s | min | max | server CPU s/GiB (median) |");
  console.log("|---|---|---|---|---|");
  for (const c of cases) {
    const values = results.get(c.name) ?? [];
    const gbps = (v: number) => (v / 1e9).toFixed(2);
    console.log(
      `| ${c.name} | ${gbps(median(values))} | ${gbps(Math.min(...values))} | ${gbps(Math.max(...values))} | ${median(serverCpu.get(c.name) ?? []).toFixed(2)} |`,
    );
  }
} finally {
  await platform.dispose();
  await removeLab(labName);
}
