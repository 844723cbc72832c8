/**
 * Runs INSIDE the stock-kernel VM (test/stock-kernel/stock-kernel.test.ts boots it), from the
 * repository under test (the current directory): a small study on a custom profile through the
 * real CLI, then the platform's own checks attached to the same lab. It measures
 * and reports; the test on the host judges. The last line of output is
 * `LNB-STOCK-KERNEL-RESULT <json>` (GuestReport).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const RESULT_MARKER = "LNB-STOCK-KERNEL-RESULT ";
export const PROFILE_NAME = "stock-100";
export const MEMORY_MB = 1024;
export const ROUND_TRIP_MS = 20;
export const RATE_MEGABITS_PER_SECOND = 100;

/** The custom profile of the study: 100 Mbit/s both ways, 20 ms round trip, no burst. */
export const customProfile = {
  name: PROFILE_NAME,
  description: "stock-kernel test: 100 Mbit/s, 20 ms round trip, no burst",
  download: [{ memoryMb: 128, megabitsPerSecond: RATE_MEGABITS_PER_SECOND }],
  upload: [{ memoryMb: 128, megabitsPerSecond: RATE_MEGABITS_PER_SECOND }],
  burst: null,
  roundTripMs: ROUND_TRIP_MS,
};

export const FLOW_MEGABITS_PER_SECOND = 40;
/** Checked after the study, in a private lab: a per-flow cap under the link, with the round trip. */
export const flowCappedProfile = {
  name: "stock-flow",
  description: "stock-kernel test: 100 Mbit/s link, 40 Mbit/s per flow, 20 ms round trip",
  download: [{ memoryMb: 128, megabitsPerSecond: RATE_MEGABITS_PER_SECOND }],
  upload: [{ memoryMb: 128, megabitsPerSecond: RATE_MEGABITS_PER_SECOND }],
  burst: null,
  roundTripMs: ROUND_TRIP_MS,
  flowMegabitsPerSecond: FLOW_MEGABITS_PER_SECOND,
};
/** A stock iperf3 server the guest starts in the flow lab's cloud namespace: fq alone caps it. */
const FLOW_CHECK_PORT = 5299;

export interface CommandRun {
  command: string;
  exitCode: number;
  /** Last 4 KB of stdout and stderr. */
  outputTail: string;
  seconds: number;
}

export interface StudyRecord {
  probe: string;
  probeLabel: string;
  direction: string | null;
  ok: boolean;
  megabitsPerSecond: number | null;
  /** iperf3's sum_received rate: what crossed the link, where the headline may be sum_sent. */
  receivedMegabitsPerSecond: number | null;
  error: { kind: string; message: string } | null;
  detail: unknown;
}

/** What the guest found; any field null when its step did not get that far (see `errors`). */
export interface GuestReport {
  kernel: string;
  cgroupMounts: string[];
  /** The CLI study: lab up --config --profile, run --config, lab down. */
  labUp: CommandRun | null;
  run: CommandRun | null;
  labDown: CommandRun | null;
  manifestPlatform: {
    unshaped: boolean;
    quotaBitsPerSecond: number | null;
    details: Record<string, unknown>;
  } | null;
  records: StudyRecord[];
  /** cpu.max files of lab cgroups seen while the study ran: path -> content. */
  cpuMaxSeen: Record<string, string>;
  /** Qdiscs of the lab's namespaces while the study ran (`tc qdisc show` per namespace). */
  qdiscsSeen: Record<string, string>;
  /** Left behind after `lab down`, compared with before `lab up`. */
  leftAfterLabDown: {
    namespaces: string[];
    cgroups: string[];
    processes: string[];
    runFiles: string[];
  } | null;
  /** Tails of the lab's logs (/run/lnblab*), kept when a CLI step failed. */
  labLogs: Record<string, string>;
  /** The checks through the platform API. */
  platformChecks: {
    facts: { unshaped: boolean; details: Record<string, unknown> } | null;
    infoCpuQuotaCores: number | null;
    infoMemoryLimitMb: number | null;
    cpuBurnCores: number | null;
    iperf3: Array<{
      direction: "upload" | "download";
      probeBitsPerSecond: number[];
      stockBitsPerSecond: number[];
    }>;
    /** TCP connect (one round trip) and time to first byte of an HTTPS GET to the lab's S3 server, seconds. */
    curl: Array<{ connectSeconds: number; firstByteSeconds: number }>;
    ping: { averageMs: number } | null;
    oom: { kind: string | null; message: string | null; durationSeconds: number } | null;
    afterOom: { ok: boolean; cold: boolean | null } | null;
  };
  /**
   * sch_fq `maxrate` under tbf under netem, on a real kernel: stock iperf3 client and server (a
   * server of the guest's own, which paces nothing) in a private lab on flowCappedProfile.
   */
  flowCap: {
    /** `tc qdisc show` of the environment's and the cloud's namespace. */
    qdiscs: Record<string, string>;
    runs: Array<{ streams: number; reverse: boolean; receivedBitsPerSecond: number }>;
    /** The private lab's namespaces still there after dispose. */
    leftNamespaces: string[];
  } | null;
  errors: string[];
}

type Json = Record<string, unknown>;

function log(message: string): void {
  process.stdout.write(`[guest ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function run(
  command: string,
  args: string[],
  timeoutSeconds = 600,
): Promise<CommandRun & { stdout: string }> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let both = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutSeconds * 1000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      both += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      both += chunk;
    });
    const finish = (exitCode: number) => {
      clearTimeout(timer);
      resolvePromise({
        command: [command, ...args].join(" "),
        exitCode,
        outputTail: both.slice(-4096),
        seconds: (Date.now() - started) / 1000,
        stdout,
      });
    };
    child.once("error", (error) => {
      both += `${error.message}\n`;
      finish(127);
    });
    child.once("close", (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}

function listNamespaces(): string[] {
  try {
    return readdirSync("/run/netns").sort();
  } catch {
    return [];
  }
}

/** Every cgroup directory whose name starts with `prefix`, anywhere under /sys/fs/cgroup. */
function findCgroups(prefix: string, dir = "/sys/fs/cgroup", depth = 0): string[] {
  if (depth > 4) return [];
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    return [...(name.startsWith(prefix) ? [path] : []), ...findCgroups(prefix, path, depth + 1)];
  });
}

/** Command lines of every process but the kernel's threads, this one and its ancestors. */
function listProcesses(): string[] {
  const mine = new Set<number>();
  for (let pid = process.pid; pid > 0; ) {
    mine.add(pid);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  const lines: string[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || mine.has(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      if (cmdline !== "") lines.push(`${pid} ${cmdline}`);
    } catch {
      // exited meanwhile
    }
  }
  return lines;
}

function labState(prefix: string) {
  return {
    namespaces: listNamespaces().filter((name) => name.startsWith(prefix)),
    cgroups: findCgroups(prefix),
    processes: listProcesses(),
  };
}

/** Polls the lab's cgroups and namespaces while `work` runs: what the shaping really was. */
async function watchLab<T>(
  prefix: string,
  cpuMaxSeen: Record<string, string>,
  qdiscsSeen: Record<string, string>,
  labLogs: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  let done = false;
  const qdiscFailures: Record<string, string> = {};
  let polls = 0;
  const poll = async () => {
    while (!done) {
      for (const dir of findCgroups(prefix)) {
        for (const sub of [dir, ...readdirSafe(dir).map((name) => join(dir, name))]) {
          const file = join(sub, "cpu.max");
          if (existsSync(file)) cpuMaxSeen[sub] = readFileSync(file, "utf8").trim();
        }
      }
      for (const namespace of listNamespaces().filter((name) => name.startsWith(prefix))) {
        if (qdiscsSeen[namespace]?.includes("netem") && qdiscsSeen[namespace]?.includes("tbf")) continue;
        const shown = await run("tc", ["-n", namespace, "-d", "qdisc", "show"], 30);
        if (shown.exitCode === 0) qdiscsSeen[namespace] = shown.stdout.trim();
        else qdiscFailures[namespace] = `exit ${shown.exitCode}: ${shown.outputTail.slice(-300)}`;
      }
      collectLabLogs(labLogs);
      polls += 1;
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 2000));
    }
  };
  const poller = poll();
  try {
    return await work();
  } finally {
    done = true;
    await poller;
    // seen nothing: say why, for the next reader of a failed run
    if (Object.keys(qdiscsSeen).length === 0)
      log(
        `no qdiscs seen in ${polls} polls; namespaces now: ${listNamespaces().join(", ") || "none"}; tc failures: ${JSON.stringify(qdiscFailures)}`,
      );
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** The last 2 KB of every log of the lab's (its servers' output), for a failure's report. A failed
 *  `lab up` removes its directory, so this runs every few seconds while a step runs. */
function collectLabLogs(into: Record<string, string>): void {
  for (const dir of readdirSafe("/run").filter((name) => name.startsWith("lnblab"))) {
    let files: string[];
    try {
      files = readdirSync(join("/run", dir)).filter((name) => name.endsWith(".log"));
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        const path = join("/run", dir, file);
        into[path] = readFileSync(path, "utf8").slice(-2048);
      } catch {
        // removed meanwhile
      }
    }
  }
}

async function keepingLabLogs<T>(into: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => collectLabLogs(into), 3000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    collectLabLogs(into);
  }
}

/** Printed at once, not only in the final report: a VM that times out later still shows why. */
function printLabLogs(logs: Record<string, string>): void {
  for (const [path, text] of Object.entries(logs)) log(`${path} (tail):\n${text}`);
}

// --- the CLI study ------------------------------------------------------------------------------

/**
 * lab up, the study with the CLI, then (while the same lab is up) `whileUp`, then lab down.
 * One lab for everything: under TCG every server and agent start costs minutes (a second,
 * private lab took 4.5 min to open on a loaded host).
 */
async function cliStudy(
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

// --- the platform's own checks attached to the CLI's lab -----------------------------------------

interface InvokeOutcome {
  response: {
    ok: boolean;
    summary?: { bitsPerSecond?: number } | null;
    detail?: unknown;
    invocation?: { cold: boolean };
    error?: { message: string };
  } | null;
  failure: { kind: string; message: string } | null;
  durationSeconds: number;
}

/** The parts of LocalPlatform this check uses (imported from the repository under test). */
interface LabPlatform {
  facts(): Promise<{ unshaped: boolean; details: Record<string, unknown> }>;
  prepare(variants: Array<{ memoryMb: number; arch: string }>): Promise<void>;
  endpoints(): { iperf3?: { host: string; ports: number[] }; s3?: { endpoint?: string } };
  invoke(
    variant: { memoryMb: number; arch: string },
    event: Json,
    options?: { timeoutSeconds?: number },
  ): Promise<InvokeOutcome>;
  execInEnvironment(
    memoryMb: number,
    file: string,
    args: string[],
    timeoutSeconds?: number,
  ): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  dispose(): Promise<void>;
}

/** A custom profile as a plan carries it: validated (defaults filled) by that repo's own schema. */
async function planProfile(repo: string, profile: Json): Promise<Json> {
  const { labProfileSchema } = await importFrom<{ labProfileSchema: { parse(input: unknown): Json } }>(
    repo,
    "src/plan/lab-profile.ts",
  );
  return labProfileSchema.parse(profile);
}

async function importFrom<T>(repo: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(repo, path)).href)) as T;
}

const OOM_ALLOCATE_MIB = 1_400;
const OOM_STEP_SECONDS = 240;

/** The promise's value, or null when it takes longer than `seconds`. */
async function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolvePromise) => {
    timer = setTimeout(() => resolvePromise(null), seconds * 1000);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Disposes `platform`, bounded: a step still stuck must not keep the lab from coming down. */
async function disposeWithin(platform: LabPlatform, seconds: number, report: GuestReport, what: string) {
  if (
    (await withinSeconds(
      seconds,
      platform.dispose().then(() => true),
    )) === null
  )
    report.errors.push(`${what}: not done within ${seconds} s`);
}

/** The platform's own checks, attached to the running lab `labName` (brought up by the CLI). */
async function platformChecks(repo: string, report: GuestReport, labName: string): Promise<void> {
  const checks = report.platformChecks;
  const { LocalPlatform } = await importFrom<{
    LocalPlatform: { open(options: Json): Promise<LabPlatform> };
  }>(repo, "src/platforms/local/local-platform.ts");
  const arch = process.arch === "x64" ? "x86_64" : "arm64";
  const variant = { memoryMb: MEMORY_MB, arch };
  log(`lab ${labName}: LocalPlatform.open attaches (custom profile ${PROFILE_NAME})`);
  const platform = await LocalPlatform.open({
    profile: PROFILE_NAME,
    customProfiles: [await planProfile(repo, customProfile)],
    labName,
    environments: 1,
    mode: "shaped",
  });
  try {
    await platform.prepare([variant]);
    checks.facts = await platform.facts();
    log(`facts: ${JSON.stringify(checks.facts.details)}`);

    const info = await platform.invoke(variant, { probe: "info" });
    const infoDetail = (info.response?.detail ?? {}) as { cpuQuotaCores?: number; memoryLimitMb?: number };
    checks.infoCpuQuotaCores = infoDetail.cpuQuotaCores ?? null;
    checks.infoMemoryLimitMb = infoDetail.memoryLimitMb ?? null;
    log(`info: cpuQuotaCores ${checks.infoCpuQuotaCores}, memoryLimitMb ${checks.infoMemoryLimitMb}`);

    const burn = await platform.invoke(variant, { probe: "cpu-burn", seconds: 8 }, { timeoutSeconds: 120 });
    checks.cpuBurnCores = ((burn.response?.detail ?? {}) as { cores?: number }).cores ?? null;
    log(`cpu-burn: ${checks.cpuBurnCores} cores (${JSON.stringify(burn.failure ?? burn.response?.detail)})`);

    const host = platform.endpoints().iperf3?.host ?? "";
    const port = platform.endpoints().iperf3?.ports[0] ?? 0;
    for (const direction of ["upload", "download"] as const) {
      const reverse = direction === "download";
      const entry = { direction, probeBitsPerSecond: [] as number[], stockBitsPerSecond: [] as number[] };
      checks.iperf3.push(entry);
      // three interleaved pairs, medians judged: the emulated CPUs make single runs noisy (28.9 then
      // 56.6 Mbit/s from one client, back to back, on a loaded host)
      for (let repetition = 0; repetition < 3; repetition += 1) {
        const probe = await platform.invoke(
          variant,
          { probe: "iperf3", host, port, timeSeconds: 5, omitSeconds: 1, reverse },
          { timeoutSeconds: 120 },
        );
        if (!probe.response?.ok) {
          throw new Error(`iperf3 probe ${direction}: ${JSON.stringify(probe.failure ?? probe.response)}`);
        }
        entry.probeBitsPerSecond.push(probe.response.summary?.bitsPerSecond ?? 0);
        const args = ["-c", host, "-p", `${port}`, "-t", "5", "-O", "1", "-J", ...(reverse ? ["-R"] : [])];
        const stock = await platform.execInEnvironment(MEMORY_MB, "iperf3", args, 120);
        if (stock.exitCode !== 0)
          throw new Error(`stock iperf3 ${direction}: ${stock.stderr || stock.stdout}`);
        const end = (JSON.parse(stock.stdout) as { end: { sum_received: { bits_per_second: number } } }).end;
        entry.stockBitsPerSecond.push(end.sum_received.bits_per_second);
      }
      log(
        `iperf3 ${direction}: probe ${entry.probeBitsPerSecond.map((v) => (v / 1e6).toFixed(1))} Mbit/s, stock ${entry.stockBitsPerSecond.map((v) => (v / 1e6).toFixed(1))} Mbit/s`,
      );
    }

    const s3Endpoint = platform.endpoints().s3?.endpoint ?? "https://198.18.0.1";
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const curl = await platform.execInEnvironment(
        MEMORY_MB,
        "curl",
        ["-sk", "-o", "/dev/null", "-w", "%{time_connect} %{time_starttransfer}", `${s3Endpoint}/`],
        60,
      );
      const [connect, firstByte] = curl.stdout.trim().split(" ").map(Number);
      if (curl.exitCode === 0 && connect !== undefined && firstByte !== undefined) {
        checks.curl.push({ connectSeconds: connect, firstByteSeconds: firstByte });
      } else {
        report.errors.push(`curl ${s3Endpoint} in the environment: exit ${curl.exitCode} ${curl.stderr}`);
      }
    }
    log(`curl to ${s3Endpoint}: ${JSON.stringify(checks.curl)}`);
    const ping = await platform.execInEnvironment(MEMORY_MB, "ping", ["-c", "5", "-i", "0.2", host], 60);
    const average = ping.stdout.match(/= [\d.]+\/([\d.]+)\//)?.[1];
    checks.ping = ping.exitCode === 0 && average ? { averageMs: Number(average) } : null;
    log(
      `ping: ${ping.exitCode === 0 ? `${average} ms` : `unavailable (${ping.stderr.trim() || ping.exitCode})`}`,
    );

    // out of memory in the warm 1,024 MB environment (no second variant to start under TCG),
    // bounded: near memory.max the kernel may first evict the agent's own code pages, which this
    // guest re-reads over 9p (minutes under TCG, never on a host with a local disk)
    log(`allocate ${OOM_ALLOCATE_MIB} MiB at ${MEMORY_MB} MB`);
    const oom = await withinSeconds(
      OOM_STEP_SECONDS,
      platform.invoke(variant, { probe: "allocate", mib: OOM_ALLOCATE_MIB }, { timeoutSeconds: 120 }),
    );
    if (oom === null) {
      report.errors.push(
        `allocate ${OOM_ALLOCATE_MIB} MiB at ${MEMORY_MB} MB: no outcome within ${OOM_STEP_SECONDS} s`,
      );
      return;
    }
    checks.oom = {
      kind: oom.failure?.kind ?? null,
      message: oom.failure?.message ?? null,
      durationSeconds: oom.durationSeconds,
    };
    log(`allocate: ${JSON.stringify(checks.oom)}`);
    const next = await withinSeconds(OOM_STEP_SECONDS, platform.invoke(variant, { probe: "info" }));
    checks.afterOom = next && {
      ok: next.response?.ok === true,
      cold: next.response?.invocation?.cold ?? null,
    };
    log(`after out-of-memory: ${JSON.stringify(checks.afterOom)}`);
  } finally {
    // attached: dispose releases the environments; the CLI's lab down then removes everything
    // (bounded: an invocation still stuck above must not keep the lab from coming down)
    await disposeWithin(platform, 60, report, "platform dispose");
  }
}

/**
 * A private lab on flowCappedProfile (the lab's own iperf3 server: the stock one is refused with
 * a per-flow cap), checked with a stock iperf3 server the guest runs in the cloud namespace, which
 * caps nothing itself: one flow each way, then two flows up.
 */
async function flowCapChecks(repo: string, report: GuestReport): Promise<void> {
  const { LocalPlatform } = await importFrom<{
    LocalPlatform: { open(options: Json): Promise<LabPlatform> };
  }>(repo, "src/platforms/local/local-platform.ts");
  const names = await importFrom<{
    privateLabName(): string;
    cloudNamespace(labName: string): string;
    environmentNamespace(labName: string, index: number): string;
  }>(repo, "src/platforms/local/lab-names.ts");
  const labName = names.privateLabName();
  const result: NonNullable<GuestReport["flowCap"]> = { qdiscs: {}, runs: [], leftNamespaces: [] };
  report.flowCap = result;
  log(`flow-capped lab ${labName} (profile ${flowCappedProfile.name})`);
  const platform = await LocalPlatform.open({
    profile: flowCappedProfile.name,
    customProfiles: [await planProfile(repo, flowCappedProfile)],
    labName,
    environments: 1,
    mode: "shaped",
    iperf3Server: "ours",
  });
  const cloud = names.cloudNamespace(labName);
  const host = platform.endpoints().iperf3?.host ?? "198.18.0.1";
  const server = spawn(
    "ip",
    ["netns", "exec", cloud, "iperf3", "--server", "--bind", host, "--port", `${FLOW_CHECK_PORT}`],
    { stdio: "ignore" },
  );
  try {
    for (const { streams, reverse } of [
      { streams: 1, reverse: false },
      { streams: 2, reverse: false },
      { streams: 1, reverse: true },
    ]) {
      const args = ["-c", host, "-p", `${FLOW_CHECK_PORT}`, "-t", "5", "-O", "1", "-J", "-P", `${streams}`];
      if (reverse) args.push("-R");
      // the server may still be starting: a refused connection is tried again (5 times, 3 s apart)
      let stock = await platform.execInEnvironment(MEMORY_MB, "iperf3", args);
      for (let attempt = 0; stock.exitCode !== 0 && attempt < 5; attempt += 1) {
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 3000));
        stock = await platform.execInEnvironment(MEMORY_MB, "iperf3", args);
      }
      if (stock.exitCode !== 0)
        throw new Error(
          `stock iperf3 -P ${streams}${reverse ? " -R" : ""}: ${stock.stdout.slice(-500)} ${stock.stderr}`,
        );
      const end = (JSON.parse(stock.stdout) as { end: { sum_received: { bits_per_second: number } } }).end;
      result.runs.push({ streams, reverse, receivedBitsPerSecond: end.sum_received.bits_per_second });
      log(
        `flow cap: -P ${streams}${reverse ? " -R" : ""} ${(end.sum_received.bits_per_second / 1e6).toFixed(1)} Mbit/s`,
      );
    }
    for (const namespace of [names.environmentNamespace(labName, 0), cloud]) {
      const shown = await run("tc", ["-n", namespace, "qdisc", "show"], 30);
      result.qdiscs[namespace] = shown.stdout.trim() || shown.outputTail;
    }
    log(`flow cap qdiscs: ${JSON.stringify(result.qdiscs)}`);
  } finally {
    server.kill();
    await disposeWithin(platform, 120, report, "flow-capped lab: dispose");
    result.leftNamespaces = listNamespaces().filter((name) => name.startsWith(labName));
  }
}

async function main(): Promise<void> {
  const repo = resolve(process.cwd());
  const report: GuestReport = {
    kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(),
    cgroupMounts: readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .filter((line) => / cgroup2? /.test(line)),
    labUp: null,
    run: null,
    labDown: null,
    manifestPlatform: null,
    records: [],
    cpuMaxSeen: {},
    qdiscsSeen: {},
    leftAfterLabDown: null,
    labLogs: {},
    platformChecks: {
      facts: null,
      infoCpuQuotaCores: null,
      infoMemoryLimitMb: null,
      cpuBurnCores: null,
      iperf3: [],
      curl: [],
      ping: null,
      oom: null,
      afterOom: null,
    },
    flowCap: null,
    errors: [],
  };
  log(`kernel ${report.kernel}, repository ${repo}`);
  const failed = (name: string, error: unknown) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`${name} failed: ${text}`);
    report.errors.push(`${name}: ${text.split("\n").slice(0, 6).join("\n")}`);
  };
  try {
    await cliStudy(repo, report, (labName) =>
      platformChecks(repo, report, labName).catch((error) => failed("platform checks", error)),
    );
  } catch (error) {
    failed("CLI study", error);
  }
  await flowCapChecks(repo, report).catch((error) => failed("flow cap", error));
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(report)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  await main();
}

function receivedMegabitsPerSecond(record: Json): number | null {
  const received = record.received as { bitsPerSecond?: unknown } | undefined;
  return typeof received?.bitsPerSecond === "number" ? received.bitsPerSecond / 1e6 : null;
}
