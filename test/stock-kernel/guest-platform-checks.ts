/**
 * The guest study's second part: LocalPlatform's own checks on the stock kernel, attached to the
 * CLI's lab (facts, CPU and memory limits, iperf3, curl, ping, out-of-memory), then a per-flow
 * cap on a private lab (sch_fq under tbf under netem, the only place that path runs).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Json, listNamespaces, log, run } from "./guest-observation.js";
import {
  COMPARE_MEMORY_MB,
  customProfile,
  flowCappedProfile,
  type GuestReport,
  MEMORY_MB,
  PROFILE_NAME,
} from "./guest-report.js";

/** A stock iperf3 server the guest starts in the flow lab's cloud namespace: fq alone caps it. */
export const FLOW_CHECK_PORT = 5299;

// --- the platform's own checks attached to the CLI's lab -----------------------------------------

export interface InvokeOutcome {
  response: {
    ok: boolean;
    summary?: { bitsPerSecond?: number; received?: { bitsPerSecond: number } } | null;
    detail?: unknown;
    invocation?: { cold: boolean };
    error?: { message: string };
  } | null;
  failure: { kind: string; message: string } | null;
  durationSeconds: number;
}

/** The parts of LocalPlatform this check uses (imported from the repository under test). */
export interface LabPlatform {
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

/**
 * A module of the repository under test, by its source path (`src/....ts`). Run compiled (from the
 * test run's mirror, scripts/compiled-tests.mjs), the guest takes the mirror's JavaScript of the
 * same checkout: tsx in the emulated guest cost a minute or more of a loaded host to load
 * LocalPlatform (91 s from the study's end to the platform open, 2026-12-06).
 */
export async function importFrom<T>(repo: string, path: string): Promise<T> {
  const compiledRoot = import.meta.url.endsWith(".js")
    ? fileURLToPath(new URL("../../", import.meta.url))
    : null;
  const file = compiledRoot ? join(compiledRoot, path.replace(/\.ts$/, ".js")) : join(repo, path);
  return (await import(pathToFileURL(file).href)) as T;
}

export const OOM_ALLOCATE_MIB = 1_400;
export const OOM_STEP_SECONDS = 240;

/** The promise's value, or null when it takes longer than `seconds`. */
export async function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T | null> {
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
export async function disposeWithin(
  platform: LabPlatform,
  seconds: number,
  report: GuestReport,
  what: string,
) {
  if (
    (await withinSeconds(
      seconds,
      platform.dispose().then(() => true),
    )) === null
  )
    report.errors.push(`${what}: not done within ${seconds} s`);
}

/** The platform's own checks, attached to the running lab `labName` (brought up by the CLI). */
export async function platformChecks(repo: string, report: GuestReport, labName: string): Promise<void> {
  const checks = report.platformChecks;
  const { LocalPlatform } = await importFrom<{
    LocalPlatform: { open(options: Json): Promise<LabPlatform> };
  }>(repo, "src/platforms/local/local-platform.ts");
  const arch = process.arch === "x64" ? "x86_64" : "arm64";
  const variant = { memoryMb: MEMORY_MB, arch };
  const compareVariant = { memoryMb: COMPARE_MEMORY_MB, arch };
  log(`lab ${labName}: LocalPlatform.open attaches (custom profile ${PROFILE_NAME})`);
  const platform = await LocalPlatform.open({
    profile: PROFILE_NAME,
    customProfiles: [await planProfile(repo, customProfile)],
    labName,
    environments: 1,
    mode: "shaped",
  });
  try {
    await platform.prepare([variant, compareVariant]);
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
      // three interleaved pairs, each side's fastest judged: the emulated CPUs make single runs noisy (28.9 then
      // 56.6 Mbit/s from one client, back to back, on a loaded host)
      for (let repetition = 0; repetition < 3; repetition += 1) {
        const probe = await platform.invoke(
          compareVariant,
          { probe: "iperf3", host, port, timeSeconds: 5, omitSeconds: 1, reverse },
          { timeoutSeconds: 120 },
        );
        if (!probe.response?.ok) {
          throw new Error(`iperf3 probe ${direction}: ${JSON.stringify(probe.failure ?? probe.response)}`);
        }
        // the received side of both (stock's sum_received): an upload's headline is the sender's
        // sum_sent, which counts what still sat in the send buffer (+10% at 20 Mbit/s over 6 s)
        const summary = probe.response.summary;
        entry.probeBitsPerSecond.push(summary?.received?.bitsPerSecond ?? 0);
        const args = ["-c", host, "-p", `${port}`, "-t", "5", "-O", "1", "-J", ...(reverse ? ["-R"] : [])];
        const stock = await platform.execInEnvironment(COMPARE_MEMORY_MB, "iperf3", args, 120);
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
    for (let sample = 0; sample < 3; sample += 1) {
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
export async function flowCapChecks(repo: string, report: GuestReport): Promise<void> {
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
    // not measured: the lab's own servers (Node, nginx) take the emulated CPU as they start, and
    // the first flow read 3.3 Mbit/s on 8 in the minute after the lab came up (2026-12-03)
    const warmUp = await stockFlowRun(platform, host, 1, false);
    log(`flow cap: warm-up -P 1 ${(warmUp / 1e6).toFixed(1)} Mbit/s (not measured)`);
    for (const { streams, reverse } of [
      { streams: 1, reverse: false },
      { streams: 2, reverse: false },
      { streams: 1, reverse: true },
    ]) {
      const bitsPerSecond = await stockFlowRun(platform, host, streams, reverse);
      result.runs.push({ streams, reverse, receivedBitsPerSecond: bitsPerSecond });
      log(`flow cap: -P ${streams}${reverse ? " -R" : ""} ${(bitsPerSecond / 1e6).toFixed(1)} Mbit/s`);
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

/**
 * One stock iperf3 client run in the environment. The guest's own server may still be starting
 * (minutes under TCG): a refused connection waits for it (5 times, 3 s apart); a run that
 * connected is never repeated.
 */
async function stockFlowRun(
  platform: LabPlatform,
  host: string,
  streams: number,
  reverse: boolean,
): Promise<number> {
  const args = ["-c", host, "-p", `${FLOW_CHECK_PORT}`, "-t", "5", "-O", "1", "-J", "-P", `${streams}`];
  if (reverse) args.push("-R");
  let stock = await platform.execInEnvironment(MEMORY_MB, "iperf3", args);
  for (let retry = 0; stock.exitCode !== 0 && retry < 5; retry += 1) {
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 3000));
    stock = await platform.execInEnvironment(MEMORY_MB, "iperf3", args);
  }
  if (stock.exitCode !== 0)
    throw new Error(
      `stock iperf3 -P ${streams}${reverse ? " -R" : ""}: ${stock.stdout.slice(-500)} ${stock.stderr}`,
    );
  return (JSON.parse(stock.stdout) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received
    .bits_per_second;
}
