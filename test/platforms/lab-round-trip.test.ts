import assert from "node:assert/strict";
import { test } from "node:test";
import { labProfileSchema } from "../../src/plan/lab-profile.js";
import { netemProblem } from "../../src/platforms/local/capabilities.js";
import { ENVIRONMENT_VETH_NAME } from "../../src/platforms/local/lab-names.js";
import { describeShaping } from "../../src/platforms/local/shaping.js";
import { usePrivateLab } from "../helpers/private-lab.js";
import { rootSkip } from "../helpers/root-gate.js";
import { median } from "./lab-helpers.js";

/**
 * A custom profile with a round trip (100 Mbit/s, 20 ms, no burst) on a kernel with netem
 * (the stock-kernel guest: Debian 12's kernel, cgroup v2): netem and tbf both hold (a TCP
 * handshake shows the round trip, stock iperf3 the rate), the CPU share and memory limit come from the
 * host's cgroups (v2 there: cpu.max, memory.events), and nothing is left behind. Where the
 * kernel has no netem (this build machine) the profile is refused instead:
 * lab-refusals.test.ts checks that.
 */
const noNetem = (await netemProblem().catch((error: Error) => error.message)) ?? false;
const skip =
  rootSkip("the lab round-trip tests") ||
  (noNetem ? `SKIPPED: ${noNetem} (the refusal is checked by lab-refusals.test.ts)` : false);
if (skip && !skip.startsWith("SKIPPED without root")) console.error(`\n*** ${skip} ***\n`);
const arch = process.arch === "x64" ? "x86_64" : "arm64";
const slowLink = labProfileSchema.parse({
  name: "slow-link",
  download: [{ memoryMb: 128, megabitsPerSecond: 100 }],
  upload: [{ memoryMb: 128, megabitsPerSecond: 100 }],
  roundTripMs: 20,
});

const lab = usePrivateLab(
  skip,
  {
    profile: "slow-link",
    customProfiles: [slowLink],
    environments: 1,
    iperf3Server: "stock",
  },
  [{ memoryMb: 1024, arch }],
);

test("netem holds half the round trip on each end, under it the tbf holds the rate", { skip }, async (t) => {
  const facts = await lab.platform.facts();
  assert.equal(facts.unshaped, false);
  assert.match(String(facts.details.roundTrip), /^20 ms \(netem/);
  t.diagnostic(`cgroup v${facts.details.cgroupVersion}; kernel ${facts.details.kernel}`);
  await lab.platform.execInEnvironment(1024, "true", []);
  const qdiscs = await describeShaping(`${lab.labName}-e0`, ENVIRONMENT_VETH_NAME);
  t.diagnostic(qdiscs);
  assert.match(qdiscs, /qdisc netem 1: root .*delay 10(\.0)?ms/);
  assert.match(qdiscs, /qdisc tbf 10: parent 1:1 rate 100Mbit/);
  // the TCP handshake to the lab's S3 endpoint takes one round trip (curl's time_connect;
  // ping is not installed everywhere): the median of 5 shows the 20 ms, and a handshake can
  // never be shorter than netem's delay
  const endpoint = lab.platform.endpoints().s3?.endpoint ?? "";
  const connects: number[] = [];
  for (let sample = 0; sample < 5; sample += 1) {
    const curl = await lab.platform.execInEnvironment(1024, "curl", [
      "-s",
      "-o",
      "/dev/null",
      "--cacert",
      lab.platform.lab.s3.caFile,
      "-w",
      "%{time_connect}",
      `${endpoint}/`,
    ]);
    assert.equal(curl.exitCode, 0, curl.stderr || curl.stdout);
    connects.push(Number(curl.stdout) * 1000);
  }
  t.diagnostic(`TCP connect: ${connects.map((ms) => ms.toFixed(1)).join(", ")} ms`);
  assert.ok(
    connects.every((ms) => ms >= 20),
    `a TCP connect under the 20 ms round trip: ${connects.join(", ")} ms`,
  );
  assert.ok(median(connects) < 60, `median TCP connect ${median(connects)} ms`);
});

test("stock iperf3 gets the profile's 100 Mbit/s both ways through the 20 ms round trip", {
  skip,
}, async (t) => {
  const host = lab.platform.endpoints().iperf3?.host ?? "";
  const port = `${lab.platform.endpoints().iperf3?.ports[0]}`;
  for (const direction of [[], ["-R"]]) {
    const rates: number[] = [];
    for (let run = 0; run < 3; run += 1) {
      const result = await lab.platform.execInEnvironment(1024, "iperf3", [
        "-c",
        host,
        "-p",
        port,
        "-t",
        "5",
        "-O",
        "1",
        "-J",
        ...direction,
      ]);
      assert.equal(result.exitCode, 0, result.stderr || result.stdout);
      const report = JSON.parse(result.stdout) as { end: { sum_received: { bits_per_second: number } } };
      rates.push(report.end.sum_received.bits_per_second);
    }
    const label = direction.length > 0 ? "download" : "upload";
    t.diagnostic(`${label}: ${rates.map((r) => (r / 1e6).toFixed(1)).join(", ")} Mbit/s`);
    // 100 Mbit/s on the wire is ~96 of TCP payload; a queue of rate x RTT keeps the link full
    assert.ok(median(rates) > 0.85 * 100e6 && median(rates) <= 100e6, `${label}: ${rates}`);
  }
});

test("CPU share and memory limit come from the host's cgroups; out-of-memory is classified", {
  skip,
}, async (t) => {
  const info = await lab.platform.invoke({ memoryMb: 1024, arch }, { probe: "info" });
  assert.ok(info.response?.ok, JSON.stringify(info.failure ?? info.response));
  const detail = info.response.detail as { memoryLimitMb: number; cpuQuotaCores: number };
  t.diagnostic(`info: ${detail.cpuQuotaCores} cores, ${detail.memoryLimitMb} MB`);
  assert.ok(Math.abs(detail.cpuQuotaCores - 1024 / 1769) < 0.001, `${detail.cpuQuotaCores} cores`);
  const oom = await lab.platform.invoke(
    { memoryMb: 256, arch },
    { probe: "allocate", mib: 600 },
    { timeoutSeconds: 300 },
  );
  assert.equal(oom.failure?.kind, "out-of-memory", JSON.stringify(oom.failure));
});
