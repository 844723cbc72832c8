import assert from "node:assert/strict";
import { test } from "node:test";
import type { LatencyMeasurement } from "../../src/probes/latency/measurement.js";
import type { ConnectionMode } from "../../src/probes/latency/options.js";
import { percentiles } from "../../src/results/latency-percentiles.js";
import { summarizeMode } from "../../src/results/latency-phases.js";
import { withBenchLock } from "../helpers/bench-lock.js";
import { latencyInLab, modeOf } from "../helpers/latency-lab-run.js";
import { usePrivateLab } from "../helpers/private-lab.js";
import { rootSkip } from "../helpers/root-gate.js";

/**
 * The latency probe in lab environments, against curl: the same ranged GETs from the same
 * environment (namespace and cgroup), curl's own -w times beside ours, phase by phase; and the
 * CPU share showing in the TLS handshake of a 128 MB environment against a 1,769 MB one.
 *
 * This kernel has no netem, so every phase here is CPU (a few ms of TLS, nginx and the S3 server),
 * and CPU is what a busy host takes: beside one busy loop our new connection's first byte p50 read
 * 1.2-1.9 ms over curl's (2026-12-04, -06) and 2.5 ms over on a slower host (5.60 ms to 3.13,
 * 2026-12-06), where quiet runs read 1.1; the waits for the CPU stretch our p50 more than curl's.
 * What the marks must match is the request's own course, which the fastest request of each shows:
 * the one the host did not interrupt. So each phase's fastest is held to curl's fastest (15% or 2
 * ms), and the p50s are logged beside them; the two sides take turns, four rounds of ten requests,
 * so that both meet the same states of the host (`interleaved`). In three busy runs' quiet lanes
 * (2026-12-06) our fastest read 0.0-0.93 ms over curl's in every phase; curl's "request sent" once
 * came 0.98 ms after ours (its time_pretransfer 0.9 ms after its handshake on every request of that
 * run, 0.03-0.2 ms in the others). Run beside a whole test run, the first and last byte read 0.90
 * and 0.97 ms apart. So 1 ms would be the host again; 2 ms still fails a mark that counts a phase
 * twice or misses one (a handshake here is 1.3-1.9 ms). The round trip that makes latency a network
 * figure is the VM's check (20 ms, netem), on its fastest connect too.
 */
const skip = rootSkip("the latency probe's lab tests");
const arch = process.arch === "x64" ? "x86_64" : "arm64";
const ONE_VCPU_MB = 1_769;
const SMALL_MB = 128;
const RANGE_BYTES = 65_536;
const REQUESTS = 40;
const WARMUP = 2;

const lab = usePrivateLab(skip, { profile: "default-625", environments: 1, mode: "shaped" }, [
  { memoryMb: ONE_VCPU_MB, arch },
  { memoryMb: SMALL_MB, arch },
]);

function probe(memoryMb: number, key: string, extra: Record<string, unknown>): Promise<LatencyMeasurement> {
  const iperf3 = lab.platform.endpoints().iperf3;
  return latencyInLab(lab, { memoryMb, arch }, key, {
    bytes: RANGE_BYTES,
    requests: REQUESTS,
    warmupRequests: WARMUP,
    iperf3: { host: iperf3?.host ?? "", port: iperf3?.ports[0] ?? 0, connects: 20 },
    ...extra,
  });
}

const CURL_FORMAT =
  "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total} %{size_download}\\n";

/** curl's -w times of `count` GETs in one curl process: one connection reused, or a new one (and a full handshake) each. */
async function curlTimes(
  memoryMb: number,
  key: string,
  mode: ConnectionMode,
  count: number,
): Promise<number[][]> {
  const s3 = lab.platform.endpoints().s3;
  const url = `${s3?.endpoint}/${s3?.bucket}/${key}`;
  const perRequest = mode === "new" ? ["--no-sessionid", "-H", "Connection: close"] : [];
  const args = [
    "-sS",
    "--cacert",
    lab.platform.lab.s3.caFile,
    "-r",
    `0-${RANGE_BYTES - 1}`,
    "-w",
    CURL_FORMAT,
    ...perRequest,
  ];
  for (let i = 0; i < count; i += 1) args.push("-o", "/dev/null", url);
  const run = await lab.platform.execInEnvironment(memoryMb, "curl", args);
  assert.equal(run.exitCode, 0, run.stderr);
  const rows = run.stdout
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number));
  assert.equal(rows.length, count);
  for (const row of rows) assert.equal(row[6], RANGE_BYTES, "curl read the whole range");
  return rows.slice(WARMUP);
}

function p50(values: readonly number[]): number {
  const result = percentiles(values)?.p50Seconds;
  assert.ok(typeof result === "number", "p50 of at least 2 values");
  return result;
}

function column(rows: number[][], index: number): number[] {
  return rows.map((row) => row[index] as number);
}

function nonNull(values: Array<number | null>): number[] {
  return values.filter((v): v is number => v !== null);
}

const ms = (seconds: number) => `${(seconds * 1000).toFixed(3)} ms`;

/**
 * Our fastest request within 15% or 2 ms of curl's (whichever is wider), times in seconds; both
 * p50s are logged beside them.
 */
function assertClose(what: string, ours: number[], curls: number[], log: (line: string) => void): void {
  const [oursFastest, curlsFastest] = [Math.min(...ours), Math.min(...curls)];
  const allowed = Math.max(0.15 * curlsFastest, 0.002);
  log(
    `${what}: fastest ours ${ms(oursFastest)}, curl ${ms(curlsFastest)}; p50 ours ${ms(p50(ours))}, curl ${ms(p50(curls))}`,
  );
  assert.ok(
    Math.abs(oursFastest - curlsFastest) <= allowed,
    `${what}: our fastest ${ms(oursFastest)}, curl's ${ms(curlsFastest)} (allowed ±${ms(allowed)}; p50 ours ${ms(p50(ours))}, curl's ${ms(p50(curls))})`,
  );
}

const mode = modeOf;

type ModeRequests = LatencyMeasurement["modes"][number]["requests"];

/** Rounds of our requests and curl's, in turn: the fastest of each side is taken over all of them. */
const ROUNDS = 4;
const REQUESTS_PER_ROUND = REQUESTS / ROUNDS;

/**
 * Our probe and curl in turn, ROUNDS times, REQUESTS_PER_ROUND measured requests per mode each
 * (who goes first alternates), so both sides meet the same states of the host. One batch of 40
 * after the other met different ones: beside a busy loop a batch's fastest first byte moved 2x
 * from one batch to the next (6.06 then 2.84 ms for the same probe, 2026-12-07), and a whole-run
 * busy run read ours 5.44 ms on curl's 3.12 (ours 2.48 on 1.79 already at the handshake).
 */
async function interleaved(
  key: string,
): Promise<Array<{ ours: LatencyMeasurement; curlNew: number[][]; curlKept: number[][] }>> {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const ours = () =>
      probe(ONE_VCPU_MB, key, {
        requests: REQUESTS_PER_ROUND,
        ...(round === 0 ? {} : { iperf3: undefined }),
      });
    const curls = async () => ({
      curlNew: await curlTimes(ONE_VCPU_MB, key, "new", WARMUP + REQUESTS_PER_ROUND),
      curlKept: await curlTimes(ONE_VCPU_MB, key, "kept-alive", WARMUP + REQUESTS_PER_ROUND),
    });
    if (round % 2 === 0) {
      const measurement = await ours();
      rounds.push({ ours: measurement, ...(await curls()) });
    } else {
      const curl = await curls();
      rounds.push({ ours: await ours(), ...curl });
    }
  }
  return rounds;
}

test("each phase's fastest request is within 15% or 2 ms of curl's for the same GETs from the same environment", {
  skip,
}, async (t) => {
  const log = (line: string) => t.diagnostic(line);
  const key = await lab.platform.ensureTestObject(1_048_576);
  await withBenchLock(async () => {
    const rounds = await interleaved(key);
    const ours = rounds.map((round) => round.ours);
    const curlNew = rounds.flatMap((round) => round.curlNew);
    const curlKept = rounds.flatMap((round) => round.curlKept);
    const all = (m: ConnectionMode, times: (requests: ModeRequests) => Array<number | null>) =>
      ours.flatMap((measurement) => times(mode(measurement, m).requests));
    const fresh = {
      lookupEndSeconds: all("new", (r) => r.lookupEndSeconds),
      connectEndSeconds: all("new", (r) => r.connectEndSeconds),
      tlsEndSeconds: all("new", (r) => r.tlsEndSeconds),
      sentSeconds: nonNull(all("new", (r) => r.sentSeconds)),
      firstByteSeconds: nonNull(all("new", (r) => r.firstByteSeconds)),
      lastByteSeconds: nonNull(all("new", (r) => r.lastByteSeconds)),
    };

    for (const measurement of ours) {
      assert.equal(measurement.tls, true);
      assert.equal(measurement.hostIsName, false, "the lab's endpoint is an IP address: no look-up phase");
      assert.equal(mode(measurement, "new").connectionsOpened, REQUESTS_PER_ROUND);
    }
    assert.equal(fresh.lastByteSeconds.length, REQUESTS);
    assert.deepEqual(
      fresh.lookupEndSeconds,
      fresh.lookupEndSeconds.map(() => null),
    );
    assert.ok(p50(column(curlNew, 0)) < 0.002, "curl's look-up of an IP address is next to nothing too");
    // curl's times are cumulative from the transfer's start, as ours are
    assertClose("new: TCP connect", nonNull(fresh.connectEndSeconds), column(curlNew, 1), log);
    assertClose("new: TLS handshake done", nonNull(fresh.tlsEndSeconds), column(curlNew, 2), log);
    assertClose("new: request sent", fresh.sentSeconds, column(curlNew, 3), log);
    assertClose("new: first byte", fresh.firstByteSeconds, column(curlNew, 4), log);
    assertClose("new: last byte", fresh.lastByteSeconds, column(curlNew, 5), log);

    for (const measurement of ours)
      assert.equal(
        mode(measurement, "kept-alive").connectionsOpened,
        0,
        "the warm-up opened the connection every measured request reused",
      );
    assert.deepEqual(nonNull(all("kept-alive", (r) => r.connectEndSeconds)), []);
    const keptFirst = nonNull(all("kept-alive", (r) => r.firstByteSeconds));
    const keptLast = nonNull(all("kept-alive", (r) => r.lastByteSeconds));
    assertClose("kept-alive: first byte", keptFirst, column(curlKept, 4), log);
    assertClose("kept-alive: last byte", keptLast, column(curlKept, 5), log);

    for (const m of ours.flatMap((measurement) => measurement.modes)) {
      assert.equal(m.failedRequests, 0, JSON.stringify(m.failures));
      assert.ok(m.cpuSeconds > 0 && m.wallSeconds > 0);
      assert.ok(m.requests.bodyBytes.every((b) => b === RANGE_BYTES));
    }
    const connects = ours[0]?.iperf3Connect;
    assert.ok(connects, "the iperf3 server's connect times");
    assert.equal(connects.connectSeconds.length, 20);
    assert.equal(connects.failedConnects, 0);
    // no round trip is emulated on this profile: a connect inside the host is well under 2 ms
    log(`iperf3 connect p50 ${(p50(connects.connectSeconds) * 1000).toFixed(3)} ms`);
    assert.ok(p50(connects.connectSeconds) < 0.002, `iperf3 connect p50 ${p50(connects.connectSeconds)} s`);
  });
});

test("the CPU share shows in one run: 128 MB's requests are CPU-bound and its slow TLS handshakes wait out the share, 1,769 MB's do not", {
  skip,
}, async (t) => {
  const key = await lab.platform.ensureTestObject(1_048_576);
  await withBenchLock(async () => {
    // 100 requests: a p99 that is not the maximum (nearest rank), over handshakes of which a few
    // meet the end of the small share's CPU quota (the lab's CFS period is 100 ms)
    const options = { connections: ["new"], requests: 100, iperf3: undefined };
    const large = summarizeMode([mode(await probe(ONE_VCPU_MB, key, options), "new")]);
    const small = summarizeMode([mode(await probe(SMALL_MB, key, options), "new")]);
    assert.ok(large && small);
    const ms = (seconds: number | null | undefined) => `${((seconds ?? Number.NaN) * 1000).toFixed(2)} ms`;
    const line = (name: string, m: typeof large) =>
      `${name}: TLS p50 ${ms(m.phases.tls?.p50Seconds)} p90 ${ms(m.phases.tls?.p90Seconds)} p99 ${ms(m.phases.tls?.p99Seconds)}; total p50 ${ms(m.phases.total?.p50Seconds)} p90 ${ms(m.phases.total?.p90Seconds)}; ${m.cpuCores?.toFixed(3)} cores`;
    t.diagnostic(line("128 MB", small));
    t.diagnostic(line("1,769 MB", large));
    const smallShare = SMALL_MB / ONE_VCPU_MB;
    // CPU-bound: the requests kept the whole share busy (the analysis's 90% rule); 1,769 MB had CPU to spare
    assert.ok(
      (small.cpuCores ?? 0) >= 0.9 * smallShare,
      `128 MB used ${small.cpuCores} of ${smallShare} cores`,
    );
    assert.ok((large.cpuCores ?? 1) < 0.9, `1,769 MB used ${large.cpuCores} of 1 core`);
    const smallTls = small.phases.tls?.p99Seconds;
    const largeTls = large.phases.tls?.p99Seconds;
    assert.ok(typeof smallTls === "number" && typeof largeTls === "number", "p99 from 100 handshakes");
    assert.ok(smallTls > 2 * largeTls, `TLS p99 ${ms(smallTls)} at 128 MB, ${ms(largeTls)} at 1,769 MB`);
    const smallTotal = small.phases.total?.p90Seconds ?? 0;
    const largeTotal = large.phases.total?.p90Seconds ?? Number.POSITIVE_INFINITY;
    assert.ok(
      smallTotal > 3 * largeTotal,
      `time to last byte p90 ${ms(smallTotal)} at 128 MB, ${ms(largeTotal)} at 1,769 MB`,
    );
  });
});
