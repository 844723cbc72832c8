/**
 * The latency probe's own overhead per request: our time to last byte against curl's
 * `time_total` for the same ranged GETs on loopback, where the link adds next to nothing and what
 * is left is the clients' own work (and the server's, the same for both).
 *
 * nginx (Debian nginx-light) serves a 1 MiB object over HTTPS (a throwaway CA) on 127.0.0.1.
 * Alternating, RUNS times: our probe (handleEvent, as the agent runs it: REQUESTS ranged GETs of
 * 64 KiB on one kept-alive connection and REQUESTS on a new connection each, unsigned) and curl
 * (one process that fetches REQUESTS URLs on its kept-alive connection; one process per request
 * for new connections, timed by curl itself, so its process start is not counted), and Node's
 * own https client in this process (what a Node function would use). Per run the
 * median of each; the table shows the medians over the runs, our median minus curl's, and the ratio.
 *
 * Run: npm run bench -- latency  (LNB_BENCH_RUNS=5, LNB_BENCH_REQUESTS=200 by default).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { createConnection } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { handleEvent } from "../src/agent/handler.js";
import type { LatencyMeasurement } from "../src/probes/latency/measurement.js";
import { median } from "../src/results/statistics.js";
import { createTestTls } from "../test/helpers/tls-ca.js";

const RUNS = Number(process.env.LNB_BENCH_RUNS ?? 5);
const REQUESTS = Number(process.env.LNB_BENCH_REQUESTS ?? 200);
const RANGE_BYTES = 65_536;
const PORT = 18_443;
const BUCKET = "bench";
const KEY = "object-1mib";

function startNginx(dir: string, certPath: string, keyPath: string): ChildProcess {
  mkdirSync(join(dir, "www", BUCKET), { recursive: true });
  mkdirSync(join(dir, "tmp"), { recursive: true });
  writeFileSync(join(dir, "www", BUCKET, KEY), randomFillSync(Buffer.alloc(1_048_576)));
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  keepalive_requests 100000;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${PORT} ssl;
    ssl_certificate ${certPath};
    ssl_certificate_key ${keyPath};
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { root ${dir}/www; }
  }
}
`,
  );
  return spawn("nginx", ["-c", conf, "-p", dir, "-g", "daemon off;"], { stdio: "ignore" });
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (performance.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile("curl", args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
}

const url = `https://127.0.0.1:${PORT}/${BUCKET}/${KEY}`;

/** curl's time_total per request, ms: kept-alive in one process, new connections one process each. */
async function curlTimes(caPath: string): Promise<{ keptAlive: number[]; fresh: number[] }> {
  const common = ["-s", "--cacert", caPath, "-r", `0-${RANGE_BYTES - 1}`, "-w", "%{time_total}\n"];
  const many = await curl([
    ...common,
    ...Array.from({ length: REQUESTS }, () => ["-o", "/dev/null", url]).flat(),
  ]);
  const keptAlive = many
    .trim()
    .split("\n")
    .map((line) => Number(line) * 1000);
  const fresh: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1)
    fresh.push(Number(await curl([...common, "-o", "/dev/null", url])) * 1000);
  return { keptAlive, fresh };
}

/** Node's own https client, ms per request: the peer a Node function would use without our probe. */
async function nodeHttpsTimes(caPem: string): Promise<{ keptAlive: number[]; fresh: number[] }> {
  const once = (agent: https.Agent) =>
    new Promise<number>((resolve, reject) => {
      const startMs = performance.now();
      https
        .get(url, { agent, headers: { range: `bytes=0-${RANGE_BYTES - 1}` } }, (response) => {
          response.on("data", () => {});
          response.on("end", () => resolve(performance.now() - startMs));
        })
        .on("error", reject);
    });
  const measure = async (keepAlive: boolean) => {
    const agent = new https.Agent({ keepAlive, maxSockets: 1, ca: caPem });
    await once(agent); // the first request loads and compiles code no later one does
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i += 1) times.push(await once(agent));
    agent.destroy();
    return times;
  };
  return { keptAlive: await measure(true), fresh: await measure(false) };
}

/** Our time to last byte per request, ms, by mode. */
async function ourTimes(caPem: string): Promise<{ keptAlive: number[]; fresh: number[] }> {
  const response = await handleEvent({
    probe: "latency",
    endpoint: `https://127.0.0.1:${PORT}`,
    bucket: BUCKET,
    key: KEY,
    pathStyle: true,
    signRequest: false,
    caPem,
    bytes: RANGE_BYTES,
    requests: REQUESTS,
  });
  if (!response.ok) throw new Error(`latency probe: ${response.error.kind}: ${response.error.message}`);
  const latency = response.summary?.latency as LatencyMeasurement;
  const times = (mode: string) =>
    (latency.modes.find((m) => m.mode === mode)?.requests.lastByteSeconds ?? []).map((s) => s * 1000);
  return { keptAlive: times("kept-alive"), fresh: times("new") };
}

const dir = mkdtempSync(join(os.tmpdir(), "lnb-latency-bench-"));
chmodSync(dir, 0o755); // nginx's workers run as an unprivileged user
const tls = createTestTls(["127.0.0.1"]);
const nginx = startNginx(dir, tls.certPath, tls.keyPath);
try {
  await waitForPort(PORT);
  const empty = () => ({ keptAlive: [] as number[], fresh: [] as number[] });
  const rows = { ours: empty(), curl: empty(), node: empty() };
  for (let run = 1; run <= RUNS; run += 1) {
    const ours = await ourTimes(tls.caPem);
    const theirs = await curlTimes(tls.caPath);
    const node = await nodeHttpsTimes(tls.caPem);
    for (const mode of ["keptAlive", "fresh"] as const) {
      rows.ours[mode].push(median(ours[mode]));
      rows.curl[mode].push(median(theirs[mode]));
      rows.node[mode].push(median(node[mode]));
    }
    console.log(
      `run ${run}/${RUNS}: kept-alive ours ${median(ours.keptAlive).toFixed(3)} ms curl ${median(theirs.keptAlive).toFixed(3)} ms; new ours ${median(ours.fresh).toFixed(3)} ms curl ${median(theirs.fresh).toFixed(3)} ms; node https ${median(node.keptAlive).toFixed(3)} / ${median(node.fresh).toFixed(3)} ms`,
    );
  }
  console.log(
    `\n64 KiB ranged GET on loopback, p50 time to last byte (${REQUESTS} requests per mode, median of ${RUNS} runs)`,
  );
  console.log("mode        ours ms  curl ms  node https ms  ours-curl ms  ours/curl");
  for (const [label, mode] of [
    ["kept-alive", "keptAlive"],
    ["new", "fresh"],
  ] as const) {
    const ours = median(rows.ours[mode]);
    const theirs = median(rows.curl[mode]);
    const node = median(rows.node[mode]);
    console.log(
      `${label.padEnd(10)} ${ours.toFixed(3).padStart(8)} ${theirs.toFixed(3).padStart(8)} ${node.toFixed(3).padStart(14)} ${(ours - theirs).toFixed(3).padStart(13)} ${(ours / theirs).toFixed(2).padStart(10)}`,
    );
  }
  console.log(
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}, node ${process.version}`,
  );
} finally {
  nginx.kill("SIGTERM");
  tls.remove();
  rmSync(dir, { recursive: true, force: true });
}
