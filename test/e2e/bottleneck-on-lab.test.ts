import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { analyzeRun } from "../../src/results/analysis.js";
import { readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { rootSkip } from "../helpers/root-gate.js";
import { scaledProfile } from "../helpers/scaled-profile.js";

/**
 * The bottleneck named on a real lab (private, as root): one profile whose CPU share is far too
 * small for its link at 512 MB (full size: 0.08 cores for 2,000 Mbit/s: CPU-bound), and a plain
 * 200 Mbit/s quota at 4,096 MB with CPU to spare (quota-bound), run at 1/4 of its rates and CPU
 * share (0.02 cores for 500 Mbit/s, twice the 1 ms-per-period floor of cpu.max; 50 Mbit/s at
 * 0.16 cores), the same ratios at rates a busy host carries. The lab records its iperf3 server's CPU for every invocation.
 */
const skip = rootSkip("the bottleneck lab run");
const starved = scaledProfile(
  {
    name: "cpu-starved",
    description: "a CPU share too small for the link at 512 MB; a plain quota at 4,096 MB",
    upload: [
      { memoryMb: 512, megabitsPerSecond: 2_000 },
      { memoryMb: 4_096, megabitsPerSecond: 200 },
    ],
    download: [{ memoryMb: 512, megabitsPerSecond: 2_000 }],
    mbPerVcpu: 6_400,
  },
  4,
  { cpu: "scaled" },
);
const profile = starved.profile;
let out: string;
before(async () => {
  if (skip) return;
  out = await mkdtemp(join(tmpdir(), "lnb-bottleneck-"));
});
after(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

test(`a CPU share too small for the link is CPU-bound; a plain quota is quota-bound (${starved.label})`, {
  skip,
  timeout: 900_000,
}, async () => {
  const plan = validatePlan({
    name: "bottleneck-lab",
    targets: [{ platform: "local", profile: profile.name }],
    profiles: [profile],
    memoryMb: [512, 4_096],
    repetitions: 2,
    probes: [{ kind: "iperf3", timeSeconds: 4, omitSeconds: 1, parallel: 1, direction: "upload" }],
  });
  const result = await runPlan({
    start: { plan, parentDir: out, source: { preset: null, configPath: null, regions: null } },
    openPlatform: () =>
      LocalPlatform.open({
        profile: profile.name,
        customProfiles: plan.profiles ?? [],
        labName: privateLabName(),
      }),
  });
  assert.equal(result.remaining, 0);
  const { records } = await readRecords(result.dir);
  const measured = records.filter((record) => !record.warmup);
  assert.ok(
    measured.every((record) => record.ok),
    "every invocation succeeded",
  );
  for (const record of measured) {
    assert.match(record.serverCpu?.server ?? "", /^iperf3 server :\d+/, "the server's CPU is recorded");
    assert.ok((record.serverCpu?.seconds ?? -1) >= 0 && (record.serverCpu?.wallSeconds ?? 0) > 0);
  }
  const { cells } = analyzeRun(result.manifest, records);
  for (const cell of cells) {
    console.log(
      `${cell.memoryMb} MB: sustained ${Math.round((cell.sustained?.median ?? 0) / 1e6)} Mbit/s, CPU ${cell.cpuCores?.median.toFixed(3)} of ${cell.cpuShareCores.toFixed(3)} cores: ${cell.bottleneck.kind}: ${cell.bottleneck.evidence}`,
    );
  }
  const starved = cells.find((cell) => cell.memoryMb === 512);
  const quota = cells.find((cell) => cell.memoryMb === 4_096);
  assert.equal(starved?.bottleneck.kind, "cpu", starved?.bottleneck.evidence);
  assert.equal(quota?.bottleneck.kind, "quota", quota?.bottleneck.evidence);
});
