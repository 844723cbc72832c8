import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { WIRE_BYTES_PER_PAYLOAD_BYTE } from "../../src/plan/lab-profile.js";
import { acquireBenchLock, type BenchLock } from "../helpers/bench-lock.js";
import { runInStockKernelVm, stockKernelVmUnavailable, takeVmLock } from "../helpers/stock-kernel-vm.js";
import { scriptArgv } from "../helpers/test-script.js";
import { ensureBuilt, median } from "../platforms/lab-helpers.js";
import { importFrom } from "./guest-platform-checks.js";
import {
  COMPARE_MEMORY_MB,
  customProfile,
  FLOW_MEGABITS_PER_SECOND,
  type GuestReport,
  MEMORY_MB,
  PROFILE_NAME,
  RATE_MEGABITS_PER_SECOND,
  RESULT_MARKER,
  ROUND_TRIP_MS,
} from "./guest-report.js";

/**
 * The lab on the kernel most users have: Debian 12's own kernel (cgroup v2 only, netem as a
 * module) booted in QEMU (TCG) over this machine's root filesystem (scripts/stock-kernel-vm.sh).
 * Inside it, test/stock-kernel/guest-study.ts runs a small study on a custom profile (10 Mbit/s,
 * 20 ms round trip, no burst: the emulated guest carries far less than the host, guest-report.ts)
 * with the real CLI, then checks the platform directly on the same lab; this file judges what it
 * measured. One VM boot, ~8-12 minutes on the 2-core build machine.
 *
 * LNB_STOCK_KERNEL_REPO=DIR runs the guest against another checkout's code (built there first).
 */
// Part of `npm test` wherever the VM can boot (scripts/setup.sh installs QEMU and prepares the
// kernel). Quiet 2-core host: 10 of 10 in 264 s (2026-12-01). LNB_STOCK_KERNEL_TEST=0 turns it off.
const unavailable =
  process.env.LNB_STOCK_KERNEL_TEST === "0"
    ? "turned off by LNB_STOCK_KERNEL_TEST=0"
    : stockKernelVmUnavailable();
if (unavailable) {
  // loud: a machine without QEMU never proves the lab works on cgroup v2
  console.warn(`\n*** stock-kernel VM test SKIPPED: ${unavailable}\n*** (scripts/setup.sh installs it)\n`);
}
const skip = unavailable ? `no stock-kernel VM here: ${unavailable}` : false;
const otherRepo = process.env.LNB_STOCK_KERNEL_REPO !== undefined;
const repo = resolve(process.env.LNB_STOCK_KERNEL_REPO ?? process.cwd());

/**
 * The guest's program: compiled when this file runs compiled (the test run's mirror: tsx in the
 * emulated guest cost a minute or more of a loaded host), from source through tsx for another
 * checkout (LNB_STOCK_KERNEL_REPO: its .ts files are imported; run this file with tsx then).
 */
function guestStudyArgv(): string[] {
  return otherRepo
    ? ["--import", "tsx", resolve("test/stock-kernel/guest-study.ts")]
    : scriptArgv(new URL("./guest-study.ts", import.meta.url));
}
/**
 * The VM's whole life, boot included: under the suite's 15 minutes for one test. 840 s until
 * 2026-12-06, when beside a busy loop and three measuring files the guest ran 797 s, then past
 * 840 in its last step (the per-flow cap), with every step before it passed.
 */
const VM_TIMEOUT_SECONDS = 870;

let report: GuestReport | null = null;
let noReport = "the guest did not run";
let lock: BenchLock | null = null;
let releaseVm: () => void = () => {};

/** This branch's plan schema must accept `profiles:` (branch lab-v2), or nothing below can run. */
async function customProfilesProblem(): Promise<string | null> {
  const { planSchema } = (
    otherRepo
      ? await import(pathToFileURL(join(repo, "src/plan/plan-schema.ts")).href)
      : await importFrom(repo, "src/plan/plan-schema.ts")
  ) as {
    planSchema: { safeParse(input: unknown): { success: boolean; error?: { message: string } } };
  };
  const parsed = planSchema.safeParse({
    targets: [{ platform: "local", profile: PROFILE_NAME }],
    memoryMb: [MEMORY_MB],
    probes: [{ kind: "info" }],
    profiles: [customProfile],
  });
  return parsed.success
    ? null
    : `plans in ${repo} do not accept custom profiles (profiles:, roundTripMs), which this test needs (branch lab-v2): ${parsed.error?.message}`;
}

before(
  async () => {
    if (skip) return;
    if (repo === resolve(process.cwd())) ensureBuilt();
    else if (!existsSync(join(repo, "dist/agent/index.mjs")))
      throw new Error(`${repo} is not built: run npm run build there`);
    else if (statSync(join(repo, "dist/agent/index.mjs")).mtimeMs < statSync(join(repo, "src")).mtimeMs)
      console.warn(`warning: ${repo}/dist may be older than its sources`);
    const problem = await customProfilesProblem();
    if (problem) {
      noReport = problem;
      return;
    }
    // the guest measures throughput and takes both cores for minutes
    lock = await acquireBenchLock(300);
    releaseVm = await takeVmLock(300);
    const boot = () =>
      runInStockKernelVm({
        cwd: repo,
        command: ["node", ...guestStudyArgv()],
        timeoutSeconds: VM_TIMEOUT_SECONDS,
        memoryMb: 4096,
        cpus: 2,
        onOutput: (chunk) => process.stderr.write(chunk),
      });
    let result = await boot();
    console.error(`stock-kernel VM: exit ${result.exitCode} after ${result.elapsedSeconds.toFixed(0)} s`);
    // Node in the emulated guest once died of SIGSEGV (exit 139) between two steps that had
    // passed, and the next boot of the same code passed: a guest killed by a signal gets one
    // more boot, loudly. A crash that repeats fails as before.
    if (result.exitCode > 128 && !result.output.includes(RESULT_MARKER)) {
      console.warn(
        `\n*** stock-kernel guest killed by signal ${result.exitCode - 128} (exit ${result.exitCode}): booting once more\n`,
      );
      result = await boot();
      console.error(
        `stock-kernel VM, second boot: exit ${result.exitCode} after ${result.elapsedSeconds.toFixed(0)} s`,
      );
    }
    const line = result.output.split("\n").find((candidate) => candidate.startsWith(RESULT_MARKER));
    if (!line) {
      // the whole output was streamed above; each test repeats only this
      noReport = `the guest produced no report (exit ${result.exitCode}${result.exitCode === 124 ? `: the VM ran past ${VM_TIMEOUT_SECONDS} s` : ""}); its output is above\n${result.harnessStderr.slice(-1500)}`;
      return;
    }
    report = JSON.parse(line.slice(RESULT_MARKER.length)) as GuestReport;
  },
  { timeout: (2 * VM_TIMEOUT_SECONDS + 60 + 600) * 1000 },
);

after(() => {
  releaseVm();
  lock?.release();
});

function guest(): GuestReport {
  assert.ok(report, noReport);
  return report;
}

function errorsText(): string {
  return report?.errors.length ? `\nguest errors:\n${report.errors.join("\n")}` : "";
}

test("the guest runs Debian's kernel with cgroup v2 alone", { skip }, () => {
  const r = guest();
  assert.match(r.kernel, /^6\.1\.0-\d+-amd64$/);
  assert.deepEqual(
    r.cgroupMounts.map((line) => line.split(" ")[2]),
    ["cgroup2"],
    `cgroup mounts: ${r.cgroupMounts}`,
  );
});

test("lab up --config --profile, run --config and lab down succeed with the custom profile", { skip }, () => {
  const r = guest();
  for (const step of [r.labUp, r.run, r.labDown]) {
    assert.ok(step, `a step did not run${errorsText()}`);
    assert.equal(step.exitCode, 0, `${step.command}: exit ${step.exitCode}\n${step.outputTail}`);
  }
  const failed = r.records.filter((record) => !record.ok);
  assert.deepEqual(
    failed.map((record) => `${record.probeLabel}: ${record.error?.kind} ${record.error?.message}`),
    [],
  );
  assert.deepEqual(
    r.records.map((record) => record.probe).sort(),
    ["info", "iperf3", "iperf3", "latency", "s3-get"],
    "one record per probe",
  );
});

test(`it ran shaped: tbf at ${RATE_MEGABITS_PER_SECOND} Mbit/s under netem, and the study measured the profile's rate`, {
  skip,
}, () => {
  const r = guest();
  assert.equal(r.manifestPlatform?.unshaped, false, `manifest: ${JSON.stringify(r.manifestPlatform)}`);
  assert.equal(r.manifestPlatform?.quotaBitsPerSecond, RATE_MEGABITS_PER_SECOND * 1e6);
  const environmentQdiscs = Object.entries(r.qdiscsSeen).filter(([namespace]) => /-e\d+$/.test(namespace));
  assert.ok(environmentQdiscs.length > 0, `qdiscs seen: ${JSON.stringify(r.qdiscsSeen)}`);
  for (const [namespace, text] of Object.entries(r.qdiscsSeen)) {
    if (!/tbf/.test(text)) continue;
    assert.match(text, new RegExp(`tbf .*rate ${RATE_MEGABITS_PER_SECOND}Mbit`), `${namespace}: ${text}`);
    assert.match(text, /netem .*delay 10ms/, `${namespace}: half the round trip each way\n${text}`);
  }
  for (const record of r.records.filter((candidate) => candidate.probe === "iperf3")) {
    // what crossed the link: TCP payload is ~4% under the wire rate, and TCG emulation may cost
    // some more, never add
    const received = record.receivedMegabitsPerSecond ?? 0;
    assert.ok(
      received > 0.6 * RATE_MEGABITS_PER_SECOND && received <= RATE_MEGABITS_PER_SECOND,
      `${record.probeLabel}: received ${received} Mbit/s for a ${RATE_MEGABITS_PER_SECOND} Mbit/s profile (${JSON.stringify(record.sides)})`,
    );
    // the upload headline is sum_sent (the seed's figure), which also counts what the send
    // buffers held when the test ended: the same bytes at any rate, so the slower the link the
    // more it adds (22.4 on a 20 Mbit/s link seen): at most 4 MB, two streams' buffers
    const headline = record.megabitsPerSecond ?? 0;
    const bufferedMegabitsPerSecond = (4e6 * 8) / 1e6 / 6;
    assert.ok(
      headline > 0.6 * RATE_MEGABITS_PER_SECOND &&
        headline <= RATE_MEGABITS_PER_SECOND + bufferedMegabitsPerSecond,
      `${record.probeLabel}: headline ${headline} Mbit/s, received ${received}, for a ${RATE_MEGABITS_PER_SECOND} Mbit/s profile (${JSON.stringify(record.sides)})`,
    );
  }
});

test("the CPU share comes from cpu.max: 0.58 core at 1,024 MB", { skip }, () => {
  const r = guest();
  const expected = MEMORY_MB / 1769;
  const quotas = Object.entries(r.cpuMaxSeen).map(([path, text]) => {
    const [quota, period] = text.split(" ");
    return { path, cores: quota === "max" ? null : Number(quota) / Number(period) };
  });
  assert.ok(
    quotas.some((entry) => entry.cores !== null && Math.abs(entry.cores - expected) < 0.001),
    `cpu.max of the lab's cgroups during the study: ${JSON.stringify(r.cpuMaxSeen)}`,
  );
  const checks = r.platformChecks;
  assert.ok(
    checks.infoCpuQuotaCores !== null && Math.abs(checks.infoCpuQuotaCores - expected) < 0.001,
    `info probe's cpuQuotaCores: ${checks.infoCpuQuotaCores}${errorsText()}`,
  );
  assert.equal(checks.infoMemoryLimitMb, MEMORY_MB);
  assert.match(String(checks.facts?.details.cpuShare), /cpu\.max/);
  // and it holds: a busy loop gets that share of a core (the guest's clock is TCG's: wide bounds)
  assert.ok(
    checks.cpuBurnCores !== null && checks.cpuBurnCores > 0.45 && checks.cpuBurnCores < 0.7,
    `cpu-burn got ${checks.cpuBurnCores} cores`,
  );
});

test(`the iperf3 probe's fastest run reads no less than stock iperf3's in the same environment (5%), and none above the link (at ${COMPARE_MEMORY_MB} MB)`, {
  skip,
}, () => {
  const r = guest();
  assert.equal(r.platformChecks.iperf3.length, 2, `iperf3 comparisons ran${errorsText()}`);
  // The defect is a probe limited by its own CPU (it reads under stock) or one that counts what
  // never crossed the link (above it). A stock client starved in the emulated guest reads low,
  // never high: beside a busy loop, stock upload 19.1, 17.9, 17.9 where the probe read 19.1 three
  // times on the 20 Mbit/s link (2026-12-03). Starved runs come on either side: on a loaded host
  // (2026-12-06) the probe read 16.4, 18.8, 17.5 and stock 18.8, 16.0, 18.8, medians 0.932 apart.
  // So each side's fastest run is compared (a probe held back by its own CPU reads under stock in
  // every run, its fastest too), and every probe run is held to the link. Load lowers a run, but
  // a stock run also read above the link: download 19.9 on a link that carries 19.1 of payload,
  // beside a busy loop (2026-12-07; likely a starved receiver that reset its count late at `-O`'s
  // end). Stock's figure is no reference above what the link carries, so the reference is at most that.
  // At 20 Mbit/s, in the starved guest of two busy whole-suite runs in a row, all three of our runs
  // read under stock's (fastest 0.916 and 0.84 of it, 2026-12-07): our client's CPU per second,
  // about 4 times stock's there, ran short first. The link is 10 since (guest-report.ts).
  const linkPayloadBitsPerSecond = (RATE_MEGABITS_PER_SECOND * 1e6) / WIRE_BYTES_PER_PAYLOAD_BYTE;
  for (const entry of r.platformChecks.iperf3) {
    const probe = Math.max(...entry.probeBitsPerSecond);
    const reference = Math.min(Math.max(...entry.stockBitsPerSecond), linkPayloadBitsPerSecond);
    const ratio = probe / reference;
    const shown = `${entry.direction}: probe ${entry.probeBitsPerSecond} vs stock ${entry.stockBitsPerSecond} bit/s (fastest runs, ratio ${ratio.toFixed(3)} to ${(reference / 1e6).toFixed(2)} Mbit/s)`;
    assert.ok(ratio >= 0.95, shown);
    assert.ok(
      probe <= RATE_MEGABITS_PER_SECOND * 1e6,
      `${shown}: above the ${RATE_MEGABITS_PER_SECOND} Mbit/s link`,
    );
  }
});

test("the round trip shows: 20 ms to the lab's S3 server", { skip }, () => {
  const r = guest();
  const checks = r.platformChecks;
  assert.ok(checks.curl.length > 0, `no curl timing${errorsText()}`);
  const connect = median(checks.curl.map((timing) => timing.connectSeconds)) * 1000;
  const firstByte = median(checks.curl.map((timing) => timing.firstByteSeconds)) * 1000;
  // a TCP handshake is one round trip; TLS and the request add two more before the first byte.
  // The emulated CPUs add their own delay on a busy host (128 ms seen): the upper bound only
  // catches a link that is not working at all
  assert.ok(connect >= ROUND_TRIP_MS * 0.95 && connect < 1_000, `TCP connect ${connect.toFixed(1)} ms`);
  assert.ok(firstByte >= ROUND_TRIP_MS, `time to first byte ${firstByte.toFixed(1)} ms`);
  if (checks.ping)
    assert.ok(checks.ping.averageMs >= ROUND_TRIP_MS * 0.95, `ping ${checks.ping.averageMs} ms`);
});

interface LatencyTimes {
  iperf3Connect: { connectSeconds: number[] } | null;
  modes: Array<{
    mode: string;
    requests: {
      lookupEndSeconds: Array<number | null>;
      connectEndSeconds: Array<number | null>;
      firstByteSeconds: number[];
    };
  }>;
}

test("the latency probe sees the 20 ms round trip: TCP connect p50 from 20 ms, the fastest connect no slower than curl's fastest, a new connection's first byte after two round trips", {
  skip,
}, () => {
  const record = guest().records.find((r) => r.probe === "latency");
  assert.ok(record?.latency, `no latency record${errorsText()}`);
  const latency = record.latency as LatencyTimes;
  const ms = (seconds: number) => seconds * 1000;
  const iperf3Connect = median(latency.iperf3Connect?.connectSeconds ?? []);
  const fresh = latency.modes.find((m) => m.mode === "new");
  assert.ok(fresh, "a new-connection mode");
  const connects = fresh.requests.connectEndSeconds.flatMap((end, i) =>
    end === null ? [] : [end - (fresh.requests.lookupEndSeconds[i] ?? 0)],
  );
  const connect = median(connects);
  const firstByte = median(fresh.requests.firstByteSeconds);
  console.log(
    `latency probe at ${ROUND_TRIP_MS} ms: iperf3 connect p50 ${ms(iperf3Connect).toFixed(1)} ms, S3 connect p50 ${ms(connect).toFixed(1)} ms, new connection first byte p50 ${ms(firstByte).toFixed(1)} ms`,
  );
  // Every connect takes the link's round trip, so the median is at least that. The emulated CPUs
  // add their own delay to every connect, curl's too (37-89 ms, ping 24 ms, on a busy host,
  // 2026-12-02; ours 34-44 in the same run), and in a guest starved for a second ours read 71.6
  // on curl's 32.1 measured a minute before (2026-12-03). So the ceiling, which says we time a
  // connect and nothing more, is on the fastest of each: the one connect the guest's CPU did not
  // hold up is a round trip plus at most what curl's fastest connect took.
  const curlFastest = Math.min(...guest().platformChecks.curl.map((timing) => timing.connectSeconds));
  for (const [what, values] of [
    ["iperf3 TCP connect", latency.iperf3Connect?.connectSeconds ?? []],
    ["S3 TCP connect", connects],
  ] as const) {
    const p50 = median(values);
    const fastest = Math.min(...values);
    assert.ok(
      ms(p50) >= ROUND_TRIP_MS * 0.95,
      `${what} p50 ${ms(p50).toFixed(1)} ms: under the link's ${ROUND_TRIP_MS} ms round trip`,
    );
    assert.ok(
      ms(fastest) >= ROUND_TRIP_MS * 0.95 && ms(fastest) <= ms(curlFastest) * 1.5 + 5,
      `${what} fastest ${ms(fastest).toFixed(1)} ms of ${values.length} (allowed ${ROUND_TRIP_MS * 0.95} ms to 1.5 x curl's fastest ${ms(curlFastest).toFixed(1)} ms + 5)`,
    );
  }
  // TCP's handshake, then TLS's, then the request: the first byte comes after at least two
  assert.ok(ms(firstByte) >= 2 * ROUND_TRIP_MS, `first byte p50 ${ms(firstByte).toFixed(1)} ms`);
});

test("out-of-memory is classified, and the environment recovers cold", { skip }, () => {
  const checks = guest().platformChecks;
  assert.equal(
    checks.oom?.kind,
    "out-of-memory",
    `allocate past memory.max: ${JSON.stringify(checks.oom)}${errorsText()}`,
  );
  assert.deepEqual(checks.afterOom, { ok: true, cold: true });
});

test("lab down leaves nothing behind (namespaces, cgroups, processes, /run state)", { skip }, () => {
  const r = guest();
  assert.deepEqual(r.leftAfterLabDown, { namespaces: [], cgroups: [], processes: [], runFiles: [] });
});

test("a per-flow cap holds on a real kernel: sch_fq maxrate under tbf under netem caps each flow, not the link", {
  skip,
}, () => {
  const flowCap = guest().flowCap;
  assert.ok(flowCap, `the flow-cap check did not run${errorsText()}`);
  const shown = Object.entries(flowCap.qdiscs);
  assert.equal(shown.length, 2, `qdiscs: ${JSON.stringify(flowCap.qdiscs)}`);
  for (const [namespace, text] of shown) {
    assert.match(text, new RegExp(`fq .*maxrate ${FLOW_MEGABITS_PER_SECOND}Mbit`), `${namespace}: ${text}`);
    assert.match(text, new RegExp(`tbf .*rate ${RATE_MEGABITS_PER_SECOND}Mbit`), `${namespace}: ${text}`);
    assert.match(text, /netem .*delay 10ms/, `${namespace}: ${text}`);
  }
  // one run per configuration, at rates the emulated guest carries with room to spare
  const received = (streams: number, reverse: boolean) => {
    const found = flowCap.runs.find((entry) => entry.streams === streams && entry.reverse === reverse);
    assert.ok(found, `no run of -P ${streams}${reverse ? " -R" : ""}`);
    return found.receivedBitsPerSecond / 1e6;
  };
  const runs = JSON.stringify(flowCap.runs);
  // The stock server paces nothing: only fq holds a flow under the link. The cap is a ceiling:
  // a flow above it, or two flows no faster than one (a cap on the link), is the defect; the cap
  // configured is the qdisc text above. An emulated guest starved of CPU reads low, never high:
  // fq's pacing loses the time its timers fire late. Beside one busy loop (2026-12-03) one flow
  // read 3.3 up and 5.3 down on 8 (42% and 66%), and on 4, after a warm-up, 3.5 up and 2.0 down
  // (88% and 51%), two flows 9.3 and 6.6; so the floor only catches a flow that barely moves. On
  // 4, a slower host read one flow 3.4 and two 4.1 (2026-12-06): the cap is 1 now (guest-report.ts)
  for (const reverse of [false, true]) {
    const one = received(1, reverse);
    assert.ok(
      one > 0.25 * FLOW_MEGABITS_PER_SECOND && one <= FLOW_MEGABITS_PER_SECOND,
      `one flow ${reverse ? "down" : "up"}: ${one} Mbit/s for a ${FLOW_MEGABITS_PER_SECOND} Mbit/s cap (${runs})`,
    );
  }
  // two flows against the cap, not against the one-flow run: that run meets the guest at another
  // moment, and a starved two-flow run read 1.27 where one flow had read 0.95 (quiet run,
  // 2026-12-07). A cap on the link holds two flows to one cap; more than 1.1 caps is two flows.
  const two = received(2, false);
  assert.ok(
    two > 1.1 * FLOW_MEGABITS_PER_SECOND && two <= 2 * FLOW_MEGABITS_PER_SECOND,
    `two flows up: ${two} Mbit/s, each capped at ${FLOW_MEGABITS_PER_SECOND} under a ${RATE_MEGABITS_PER_SECOND} Mbit/s link (${runs})`,
  );
  assert.deepEqual(flowCap.leftNamespaces, [], "the private lab is gone after dispose");
});

test("the guest reported no errors", { skip }, () => {
  assert.deepEqual(guest().errors, [], "see the guest's output above");
});
