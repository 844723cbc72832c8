/**
 * s3-get against the study's client on real kernel-shaped links: is ours as fast?
 *
 * Two network namespaces joined by a veth (test/helpers/netns-pair.ts, 198.18.3.0/30), nginx (Debian nginx-light) serving a
 * 1 GiB object over HTTPS with a throwaway CA in the server namespace, tbf on the egress of both
 * veth ends at 625 and 3,000 Mbit/s and unshaped. Alternating, RUNS times each: the stock iperf3
 * (-P 4 -t 5 -R, the link's ceiling), our `probe s3-get` at concurrency 10 and 1 (16 MiB parts),
 * boto3 download_fileobj (max_concurrency 10, 16 MiB chunk and threshold) into a null sink, and on
 * the 3,000 link the AWS SDK's GetObject (same ranges) for comparison. Then, on the 3,000 link,
 * the clients held to 0.58 of a core by a cgroup (Lambda's share at 1,024 MB). Finally s3rver's
 * own throughput over TLS, once.
 *
 * CPU per GiB counts the transfer only: ours from the probe's cpuSeconds, the SDK's and
 * boto3's from process CPU time measured around the download inside the process.
 *
 * Run: npm run bench -- s3-get  (root; LNB_BENCH_RUNS=3 by default). It takes the machine-wide
 * bench lock itself (an outer `flock /tmp/lnb-bench.lock` counts as taken).
 * LNB_BENCH_HOLD=1 sets the lab up and keeps it until SIGTERM, for profiling by hand.
 * The 1 GiB object is cached in /tmp/lnb3-bench-object-1gib.bin between runs.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomFillSync } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import { createNetnsPair, type NetnsPair } from "../test/helpers/netns-pair.js";
import { createTestTls } from "../test/helpers/tls-ca.js";

const RUNS = Number(process.env.LNB_BENCH_RUNS ?? 3);
const LINKS: Array<number | null> = (process.env.LNB_BENCH_LINKS ?? "625,3000,unshaped")
  .split(",")
  .map((link) => (link === "unshaped" ? null : Number(link)));
const OBJECT_BYTES = 1_073_741_824;
const OBJECT_CACHE = "/tmp/lnb3-bench-object-1gib.bin";
const CPU_LIMIT_CORES = 0.58;
const GIB = 1_073_741_824;
const DEBIAN_PYTHON = "/usr/bin/python3";
/** How long the bench waits for the machine-wide lock before it measures unlocked (with a warning). */
const LOCK_WAIT_SECONDS = 1_800;

const pid = process.pid;
const serverIp = "198.18.3.1";
const clientIp = "198.18.3.2";
const workDir = `/tmp/lnb3-bench-${pid}`;
const cgroupDir = `/sys/fs/cgroup/cpu/lnb3-bench-${pid}`;
const nginxPort = 8443;
const s3rverPort = 8444;
const endpoint = `https://${serverIp}:${nginxPort}`;
const s3Env = {
  ...process.env,
  AWS_ACCESS_KEY_ID: "lnb-bench",
  AWS_SECRET_ACCESS_KEY: "lnb-bench-secret",
  AWS_REGION: "us-east-1",
};

interface Measurement {
  link: string;
  tool: string;
  bitsPerSecond: number;
  cpuSecondsPerGib: number | null;
  detail?: string;
}
const measurements: Measurement[] = [];
const servers: ChildProcess[] = [];

function run(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}
/** The shaped link between the server and client namespaces, once main() has set it up. */
let pair: NetnsPair | undefined;
function lab(): NetnsPair {
  if (!pair) throw new Error("the namespace pair is not set up");
  return pair;
}
function inNs(ns: string, command: string[]): string[] {
  return [...lab().exec(ns), ...command];
}

/** tbf on the egress of both ends: the server's end shapes the download, the client's the upload. */
function shape(rateMbit: number | null): void {
  if (rateMbit === null) {
    lab().shape(null);
    return;
  }
  const bytesPerSecond = (rateMbit * 1e6) / 8;
  const burstBytes = Math.max(65_536, Math.round(bytesPerSecond * 0.004));
  lab().shape(rateMbit, { burst: String(burstBytes), latency: "25ms" });
}

function ensureObject(): void {
  if (existsSync(OBJECT_CACHE) && statSync(OBJECT_CACHE).size === OBJECT_BYTES) return;
  const fd = openSync(`${OBJECT_CACHE}.part`, "w");
  const block = Buffer.allocUnsafe(64 * 1_048_576);
  for (let written = 0; written < OBJECT_BYTES; written += block.length) writeSync(fd, randomFillSync(block));
  closeSync(fd);
  execFileSync("mv", [`${OBJECT_CACHE}.part`, OBJECT_CACHE]);
}

async function startNginx(certPath: string, keyPath: string): Promise<void> {
  const prefix = join(workDir, "nginx");
  mkdirSync(join(prefix, "www", "bench"), { recursive: true });
  mkdirSync(join(prefix, "tmp"), { recursive: true });
  execFileSync("ln", ["-sf", OBJECT_CACHE, join(prefix, "www", "bench", "object-1gib")]);
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 2;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  keepalive_requests 100000;
  output_buffers 2 1m;
  default_type application/octet-stream;
  server {
    listen ${serverIp}:${nginxPort} ssl;
    ssl_certificate ${certPath};
    ssl_certificate_key ${keyPath};
    ssl_protocols TLSv1.2 TLSv1.3;
    disable_symlinks off;
    location / { root ${prefix}/www; }
  }
}
`,
  );
  const nginx = spawn(
    "ip",
    inNs(lab().serverNs, ["nginx", "-c", conf, "-p", prefix, "-g", "daemon off;"]).slice(1),
    {
      stdio: "ignore",
    },
  );
  servers.push(nginx);
  await lab().waitForListener(lab().serverNs, nginxPort);
}

function makeCpuCgroup(): void {
  mkdirSync(cgroupDir);
  writeFileSync(join(cgroupDir, "cpu.cfs_period_us"), "100000");
  writeFileSync(join(cgroupDir, "cpu.cfs_quota_us"), String(Math.round(CPU_LIMIT_CORES * 100_000)));
}

/** Runs a client in the client namespace (optionally inside the CPU-limited cgroup); returns its last JSON line. */
function runClient(
  command: string[],
  limited: boolean,
  env: NodeJS.ProcessEnv = s3Env,
  timeoutMs = 180_000,
): Promise<Record<string, unknown>> {
  const inner = inNs(lab().clientNs, command);
  const argv = limited
    ? ["sh", "-c", `echo $$ > ${cgroupDir}/cgroup.procs && exec "$@"`, "sh", ...inner]
    : inner;
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] ?? "", argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${command.slice(0, 4).join(" ")} exited ${code}: ${stderr.slice(-800)}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.slice(stdout.search(/\{\s*"/))) as Record<string, unknown>);
      } catch {
        reject(new Error(`no JSON from ${command.join(" ")}: ${stdout.slice(-300)} ${stderr.slice(-300)}`));
      }
    });
  });
}

const ca = () => join(workDir, "tls", "ca.pem");

async function measureIperf3(link: string): Promise<void> {
  const server = spawn(
    "ip",
    inNs(lab().serverNs, ["iperf3", "-s", "-1", "-B", serverIp, "-p", "5201"]).slice(1),
    {
      stdio: "ignore",
    },
  );
  servers.push(server);
  await lab().waitForListener(lab().serverNs, 5201);
  const result = await runClient(
    ["iperf3", "-c", serverIp, "-p", "5201", "-P", "4", "-t", "5", "-R", "-J"],
    false,
  );
  await new Promise((resolve) => (server.exitCode === null ? server.once("exit", resolve) : resolve(null)));
  const end = result.end as { sum_received: { bits_per_second: number } };
  measurements.push({
    link,
    tool: "iperf3 -P 4 -R (ceiling)",
    bitsPerSecond: end.sum_received.bits_per_second,
    cpuSecondsPerGib: null,
  });
}

async function measureOurs(link: string, concurrency: string, limited: boolean): Promise<void> {
  const detail = await runClient(
    [
      process.execPath,
      "--import",
      "tsx",
      "bench/s3-get/probe-cli.ts",
      "probe",
      "s3-get",
      "--endpoint",
      endpoint,
      "--bucket",
      "bench",
      "--key",
      "object-1gib",
      "--path-style",
      "--ca-file",
      ca(),
      "--concurrency",
      concurrency,
      "--chunk-mib",
      "16",
      "--json",
    ],
    limited,
  );
  if (detail.bytes !== OBJECT_BYTES) throw new Error(`s3-get moved ${String(detail.bytes)} bytes`);
  measurements.push({
    link,
    tool: `lambda-netbench s3-get conc ${concurrency}${limited ? " @0.58 core" : ""}`,
    bitsPerSecond: Number(detail.bitsPerSecond),
    cpuSecondsPerGib: Number(detail.cpuSecondsPerGib),
    detail: `connections ${String(detail.connections)}, retries ${String(detail.retries)}`,
  });
}

async function measureBoto3(link: string, limited: boolean): Promise<void> {
  // Debian's python3-boto3 (the study's client), not whatever python3 comes first on PATH
  const result = await runClient(
    [DEBIAN_PYTHON, "bench/s3-get/boto3-download.py", endpoint, ca(), "bench", "object-1gib", "10", "16"],
    limited,
  );
  if (result.bytes !== OBJECT_BYTES) throw new Error(`boto3 moved ${String(result.bytes)} bytes`);
  measurements.push({
    link,
    tool: `boto3 download_fileobj conc 10${limited ? " @0.58 core" : ""}`,
    bitsPerSecond: (OBJECT_BYTES * 8) / Number(result.seconds),
    cpuSecondsPerGib: Number(result.cpuSeconds) / (OBJECT_BYTES / GIB),
  });
}

async function measureSdk(link: string): Promise<void> {
  const result = await runClient(
    [
      process.execPath,
      "--import",
      "tsx",
      "bench/s3-get/sdk-getobject.ts",
      endpoint,
      ca(),
      "bench",
      "object-1gib",
      "10",
      "16",
    ],
    false,
  );
  if (result.bytes !== OBJECT_BYTES) throw new Error(`SDK GetObject moved ${String(result.bytes)} bytes`);
  measurements.push({
    link,
    tool: "AWS SDK v3 GetObject conc 10 (comparison)",
    bitsPerSecond: (OBJECT_BYTES * 8) / Number(result.seconds),
    cpuSecondsPerGib: Number(result.cpuSeconds) / (OBJECT_BYTES / GIB),
  });
}

async function measureS3rver(certPath: string, keyPath: string): Promise<void> {
  const directory = join(workDir, "s3rver");
  mkdirSync(directory, { recursive: true });
  const server = spawn(
    "ip",
    inNs(lab().serverNs, [
      process.execPath,
      "--import",
      "tsx",
      "bench/s3-get/s3rver-server.ts",
      serverIp,
      String(s3rverPort),
      keyPath,
      certPath,
      directory,
    ]).slice(1),
    { stdio: "ignore" },
  );
  servers.push(server);
  await lab().waitForListener(lab().serverNs, s3rverPort);
  const s3rverEndpoint = `https://${serverIp}:${s3rverPort}`;
  const common = [
    "--endpoint",
    s3rverEndpoint,
    "--bucket",
    "bench",
    "--key",
    "object-256mib",
    "--path-style",
    "--ca-file",
    ca(),
    "--json",
  ];
  const cli = [process.execPath, "--import", "tsx", "bench/s3-get/probe-cli.ts", "probe"];
  // s3rver knows only its built-in account
  const s3rverEnv = { ...s3Env, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };
  const put = await runClient(
    [...cli, "s3-put", ...common, "--size-mib", "256", "--part-mib", "16", "--concurrency", "4"],
    false,
    s3rverEnv,
  );
  measurements.push({
    link: "unshaped",
    tool: "s3rver (TLS) <- our s3-put 256 MiB conc 4",
    bitsPerSecond: Number(put.bitsPerSecond),
    cpuSecondsPerGib: null,
  });
  for (let i = 0; i < RUNS; i += 1) {
    const get = await runClient(
      [...cli, "s3-get", ...common, "--concurrency", "10", "--chunk-mib", "16"],
      false,
      s3rverEnv,
    );
    measurements.push({
      link: "unshaped",
      tool: "s3rver (TLS) -> our s3-get 256 MiB conc 10",
      bitsPerSecond: Number(get.bitsPerSecond),
      cpuSecondsPerGib: null,
    });
  }
  server.kill("SIGTERM");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function printTable(): void {
  if (measurements.length === 0) return;
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const id = `${m.link}\u0000${m.tool}`;
    groups.set(id, [...(groups.get(id) ?? []), m]);
  }
  const ceiling = new Map<string, number>();
  for (const [id, ms] of groups) {
    const [link, tool] = id.split("\u0000");
    if (tool?.startsWith("iperf3")) ceiling.set(link ?? "", median(ms.map((m) => m.bitsPerSecond)));
  }
  console.log(
    "\n| link (tbf, Mbit/s) | client | runs: Mbit/s | median Mbit/s | x iperf3 | median CPU s/GiB (transfer) |",
  );
  console.log("|---|---|---|---:|---:|---:|");
  for (const [id, ms] of groups) {
    const [link = "", tool = ""] = id.split("\u0000");
    const mbps = ms.map((m) => m.bitsPerSecond / 1e6);
    const cpu = ms.map((m) => m.cpuSecondsPerGib).filter((value): value is number => value !== null);
    const top = ceiling.get(link);
    console.log(
      `| ${link} | ${tool} | ${mbps.map((v) => v.toFixed(0)).join(", ")} | ${median(mbps).toFixed(0)} | ${top ? (median(ms.map((m) => m.bitsPerSecond)) / top).toFixed(3) : "-"} | ${cpu.length > 0 ? median(cpu).toFixed(3) : "-"} |`,
    );
  }
  writeFileSync(join(os.tmpdir(), "lnb3-s3-get-bench.json"), JSON.stringify(measurements, null, 2));
}

function cleanUp(): void {
  for (const server of servers) if (server.exitCode === null && server.pid) server.kill("SIGTERM");
  pair?.remove();
  try {
    if (existsSync(cgroupDir)) rmdirSync(cgroupDir);
  } catch {
    // a child still inside: it exits with its namespace
  }
  rmSync(workDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const boto3Version = run(DEBIAN_PYTHON, ["-c", "import boto3; print(boto3.__version__)"]).trim();
  console.log(
    `s3-get benchmark: ${os.cpus()[0]?.model ?? "?"} x${os.cpus().length}, ${os.release()}, node ${process.version}, ${new Date().toISOString()}, runs ${RUNS}, boto3 ${boto3Version} (${DEBIAN_PYTHON})`,
  );
  process.once("SIGINT", () => {
    cleanUp();
    process.exit(130);
  });
  const lock = await acquireBenchLock(LOCK_WAIT_SECONDS);
  try {
    ensureObject();
    mkdirSync(workDir, { recursive: true });
    pair = createNetnsPair("lnb3", { serverAddress: serverIp, clientAddress: clientIp });
    const tls = createTestTls([serverIp]);
    execFileSync("mv", [tls.dir, join(workDir, "tls")]);
    const certPath = join(workDir, "tls", "server.pem");
    const keyPath = join(workDir, "tls", "server.key");
    await startNginx(certPath, keyPath);
    makeCpuCgroup();
    if (process.env.LNB_BENCH_HOLD === "1") {
      // for profiling by hand: keep the lab up until interrupted
      shape(LINKS[0] ?? null);
      console.log(
        `lab up: ip netns exec ${lab().clientNs} ...; endpoint ${endpoint}; CA ${ca()}; cgroup ${cgroupDir}`,
      );
      await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
      return;
    }
    for (const rate of LINKS) {
      shape(rate);
      const link = rate === null ? "unshaped" : String(rate);
      for (let i = 0; i < RUNS; i += 1) {
        await measureIperf3(link);
        await measureOurs(link, "10", false);
        await measureOurs(link, "1", false);
        await measureBoto3(link, false);
        if (rate === 3000) await measureSdk(link);
        console.log(`  ${link}: run ${i + 1}/${RUNS} done`);
      }
      if (rate === 3000) {
        for (let i = 0; i < RUNS; i += 1) {
          await measureOurs(link, "10", true);
          await measureOurs(link, "auto", true);
          await measureBoto3(link, true);
          console.log(`  ${link} @${CPU_LIMIT_CORES} core: run ${i + 1}/${RUNS} done`);
        }
      }
    }
    if (process.env.LNB_BENCH_S3RVER !== "0") {
      shape(null);
      await measureS3rver(certPath, keyPath);
    }
  } finally {
    printTable();
    cleanUp();
    lock.release();
  }
}

await main();
