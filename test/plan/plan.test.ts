import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cellId } from "../../src/plan/cell.js";
import { expandPlan, PlanError } from "../../src/plan/expand-plan.js";
import { builtInProfiles } from "../../src/plan/lab-profile.js";
import { loadPlan, validatePlan } from "../../src/plan/load-plan.js";
import { planJsonSchemaPath, planJsonSchemaText } from "../../src/plan/plan-json-schema.js";
import { presets } from "../../src/plan/presets.js";
import { orderTasks, taskKey } from "../../src/runner/task-order.js";

const minimal = {
  targets: [{ platform: "local", profile: "default-625" }],
  memoryMb: [1024],
  probes: [{ kind: "iperf3" }],
};

function problems(input: unknown): string {
  try {
    validatePlan(input);
  } catch (error) {
    assert.ok(error instanceof PlanError, String(error));
    return error.problems.join("\n");
  }
  assert.fail("the plan was accepted");
}

test("invalid plans are refused naming the field", () => {
  assert.match(problems({ ...minimal, memoryMb: [64] }), /memoryMb\.0: Lambda memory is 128-10,240 MB/);
  assert.match(problems({ ...minimal, memoryMb: [10_241] }), /memoryMb\.0: /);
  assert.match(problems({ ...minimal, repetitions: 0 }), /repetitions: .*>=1/);
  assert.match(
    problems({ ...minimal, probes: [{ kind: "iperf3", window: 3 }] }),
    /probes\.0: Unrecognized key: "window"/,
  );
  assert.match(
    problems({ ...minimal, probes: [{ kind: "ping" }] }),
    /probes\.0\.kind: .*'iperf3' \| 's3-get'/,
  );
  assert.match(
    problems({ ...minimal, targets: [{ platform: "aws", region: "mars" }] }),
    /targets\.0\.region: an AWS region/,
  );
  assert.match(problems({ ...minimal, memoryMb: [1024, 1024] }), /memoryMb: memory sizes must be distinct/);
  assert.match(problems({ ...minimal, colour: "red" }), /Unrecognized key: "colour"/);
  assert.match(
    problems({ ...minimal, probes: [{ kind: "info" }, { kind: "info", label: "again" }] }),
    /probes\.1: the same probe/,
  );
});

test("presets: seed is the study exactly, quick and full cover every probe kind", () => {
  const seed = validatePlan(presets.seed);
  assert.deepEqual(seed.memoryMb, [1024, 2048, 3072, 5120, 8192, 10240]);
  assert.deepEqual(
    seed.targets.map((t) => (t.platform === "local" ? t.profile : t.region)),
    ["seed-oregon-2026", "seed-tokyo-2026"],
  );
  const cells = expandPlan(seed);
  assert.equal(cells.length, 2 * 6 * 3);
  const iperf = cells.find((c) => c.probe.kind === "iperf3");
  assert.deepEqual(iperf?.probe, {
    kind: "iperf3",
    timeSeconds: 10,
    parallel: 4,
    direction: "upload",
    omitSeconds: 0,
  });
  assert.equal(iperf?.repetitions, 3);
  const single = cells.find((c) => c.probe.kind === "s3-get" && c.probe.concurrency === 1);
  assert.equal(single?.repetitions, 1);
  assert.ok(
    single?.probe.kind === "s3-get" && single.probe.objectMib === 1024 && single.probe.chunkMib === 16,
  );
  for (const name of ["quick", "full"] as const) {
    const kinds = new Set(validatePlan(presets[name]).probes.map((p) => p.kind));
    assert.deepEqual([...kinds].sort(), ["info", "iperf3", "s3-get", "s3-put"], name);
  }
  const full = validatePlan(presets.full);
  assert.deepEqual(full.architectures, ["arm64", "x86_64"]);
  assert.ok(full.probes.some((p) => p.kind === "iperf3" && p.direction === "download"));
  assert.ok(full.probes.some((p) => p.kind === "iperf3" && p.direction === "bidir"));
});

test("parallel and concurrency lists are a streams axis; single values keep their cell ids", () => {
  const sweep = validatePlan({
    ...minimal,
    probes: [
      { kind: "iperf3", parallel: [1, 4, 16], label: "up" },
      { kind: "s3-get", concurrency: [2, 10] },
    ],
  });
  assert.deepEqual(
    sweep.probes.map((p) => (p.kind === "iperf3" ? p.parallel : p.kind === "s3-get" ? p.concurrency : null)),
    [1, 4, 16, 2, 10],
  );
  assert.deepEqual(
    sweep.probes.map((p) => p.label),
    ["up -P 1", "up -P 4", "up -P 16", undefined, undefined],
  );
  const swept = expandPlan(sweep).map((c) => c.id);
  const singles = [1, 4, 16].map(
    (parallel) =>
      expandPlan(validatePlan({ ...minimal, probes: [{ kind: "iperf3", parallel, label: "other" }] }))[0]?.id,
  );
  assert.deepEqual(swept.slice(0, 3), singles);
  // a plan without lists is unchanged: the same ids as before lists existed
  assert.equal(
    expandPlan(validatePlan(minimal))[0]?.id,
    cellId(minimal.targets[0] as never, 1024, expandPlan(validatePlan(minimal))[0]?.arch ?? "x86_64", {
      kind: "iperf3",
      timeSeconds: 10,
      parallel: 4,
      direction: "upload",
      omitSeconds: 0,
    }),
  );
  assert.match(
    problems({ ...minimal, probes: [{ kind: "iperf3", parallel: [2, 2] }] }),
    /probes\.0\.parallel/,
  );
  assert.match(problems({ ...minimal, probes: [{ kind: "iperf3", parallel: [] }] }), /probes\.0\.parallel/);
  const streams = validatePlan(presets.streams);
  assert.deepEqual(streams.memoryMb, [10_240]);
  assert.equal(expandPlan(streams).length, 10);
});

test("the latency preset: three request sizes at six memory sizes, one environment at a time, on a 20 ms CPU period", async () => {
  const plan = validatePlan(presets.latency);
  assert.equal(plan.parallelism, 1);
  assert.deepEqual(plan.memoryMb, [128, 256, 512, 1024, 1769, 3008]);
  assert.deepEqual(
    plan.probes.map((p) => (p.kind === "latency" ? [p.bytes, p.requests, p.connections.length] : null)),
    [
      [1024, 100, 2],
      [65_536, 100, 2],
      [1_048_576, 100, 2],
    ],
  );
  assert.equal(expandPlan(plan).length, 6 * 3);
  const [target] = plan.targets;
  const profile = plan.profiles?.find((p) => target?.platform === "local" && p.name === target.profile);
  assert.equal(profile?.cpuPeriodMs, 20);
  // the same link as default-625, only the CPU period differs
  const { name: _n, description: _d, source: _s, cpuPeriodMs: _p, ...link } = profile ?? ({} as never);
  const base = builtInProfiles.find((p) => p.name === "default-625");
  const {
    name: _bn,
    description: _bd,
    source: _bs,
    cpuPeriodMs: basePeriod,
    ...baseLink
  } = base ?? ({} as never);
  assert.equal(basePeriod, 100);
  assert.deepEqual(link, baseLink);
  const onAws = await loadPlan({ preset: "latency", regions: ["us-east-1"] });
  assert.deepEqual(onAws.targets, [{ platform: "aws", region: "us-east-1" }]);
});

test("--regions swaps the targets for AWS regions; unknown presets are named", async () => {
  const plan = await loadPlan({ preset: "seed", regions: ["us-west-2", "ap-northeast-1"] });
  assert.deepEqual(plan.targets, [
    { platform: "aws", region: "us-west-2" },
    { platform: "aws", region: "ap-northeast-1" },
  ]);
  await assert.rejects(
    loadPlan({ preset: "huge" }),
    /--preset: unknown preset "huge" \(allowed: quick, seed, full, streams, latency\)/,
  );
  await assert.rejects(loadPlan({ regions: ["nowhere"] }), /targets\.0\.region/);
  assert.equal((await loadPlan({})).name, "quick", "no source: the quick preset");
});

test("a YAML config file is read and validated; a bad one names file and field", async () => {
  const dir = await mkdtemp(join(tmpdir(), "lnbr-plan-"));
  try {
    const good = join(dir, "plan.yaml");
    await writeFile(
      good,
      "name: mine\ntargets:\n  - platform: aws\n    region: us-west-2\nmemoryMb: [2048, 4096]\nprobes:\n  - kind: s3-get\n    concurrency: auto\n",
    );
    const plan = await loadPlan({ configPath: good });
    assert.equal(plan.name, "mine");
    assert.equal(plan.repetitions, 3);
    const bad = join(dir, "bad.yaml");
    await writeFile(bad, "targets: []\nmemoryMb: [1024]\nprobes: [{kind: iperf3, parallel: 0}]\n");
    await assert.rejects(loadPlan({ configPath: bad }), (error: Error) => {
      assert.match(error.message, /targets: at least one target/);
      assert.match(error.message, /probes\.0\.parallel: /);
      return true;
    });
    await writeFile(bad, "targets: [\n");
    await assert.rejects(loadPlan({ configPath: bad }), /bad\.yaml: not valid YAML/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("cell ids are stable hashes of target, memory, arch and probe parameters", () => {
  const target = { platform: "local" as const, profile: "default-625" };
  const probe = validatePlan({ ...minimal, probes: [{ kind: "iperf3", parallel: 4 }] }).probes[0];
  assert.ok(probe);
  // fixed value: changing the hash breaks resuming and comparing runs recorded by earlier versions
  assert.equal(cellId(target, 1024, "arm64", probe), "fea0e8fc4caa");
  assert.equal(
    cellId(target, 1024, "arm64", probe),
    cellId(target, 1024, "arm64", { ...probe, repetitions: 7, label: "x" }),
  );
  assert.notEqual(cellId(target, 1024, "arm64", probe), cellId(target, 2048, "arm64", probe));
  assert.notEqual(cellId(target, 1024, "arm64", probe), cellId(target, 1024, "x86_64", probe));
  assert.notEqual(
    cellId(target, 1024, "arm64", probe),
    cellId({ platform: "local", profile: "raised-3000" }, 1024, "arm64", probe),
  );
  assert.match(cellId(target, 1024, "arm64", probe), /^[0-9a-f]{12}$/);
  const reordered = {
    omitSeconds: 0,
    direction: "upload",
    parallel: 4,
    timeSeconds: 10,
    kind: "iperf3",
  } as const;
  assert.equal(
    cellId(target, 1024, "arm64", probe),
    cellId(target, 1024, "arm64", reordered),
    "key order does not matter",
  );
});

test("tasks interleave repetitions across cells and skip what is done", () => {
  const plan = validatePlan({
    ...minimal,
    memoryMb: [1024, 2048],
    repetitions: 2,
    probes: [{ kind: "iperf3" }, { kind: "info", repetitions: 1 }],
  });
  const cells = expandPlan(plan);
  const order = orderTasks(cells).map((t) => `${t.cell.memoryMb}/${t.cell.probe.kind}#${t.repetition}`);
  assert.deepEqual(order, [
    "1024/iperf3#1",
    "1024/info#1",
    "2048/iperf3#1",
    "2048/info#1",
    "1024/iperf3#2",
    "2048/iperf3#2",
  ]);
  const done = new Set([taskKey((cells[0] as (typeof cells)[number]).id, 1)]);
  assert.equal(orderTasks(cells, done).length, 5);
});

test("the committed JSON Schema is up to date (npm run schema)", async () => {
  const committed = await readFile(planJsonSchemaPath, "utf8");
  assert.equal(committed, planJsonSchemaText(), "run `npm run schema` and commit schema/plan.schema.json");
  const schema = JSON.parse(committed) as { properties: Record<string, unknown>; required: string[] };
  assert.deepEqual([...schema.required].sort(), ["memoryMb", "probes", "targets"]);
});

test("lab targets run on the host's architecture; AWS targets on every planned one", () => {
  const plan = validatePlan({
    ...minimal,
    targets: [
      { platform: "local", profile: "default-625" },
      { platform: "aws", region: "us-west-2" },
    ],
    architectures: ["arm64", "x86_64"],
  });
  const cells = expandPlan(plan, "x86_64");
  assert.deepEqual(
    cells.map((c) => `${c.target.platform}/${c.arch}`),
    ["local/x86_64", "aws/arm64", "aws/x86_64"],
  );
});

test("custom lab profiles: targets may name them; errors name the field; unknown names list the allowed ones", () => {
  const custom = {
    name: "slow-link",
    download: [{ memoryMb: 128, megabitsPerSecond: 100 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 100 }],
    roundTripMs: 20,
  };
  const plan = validatePlan({
    ...minimal,
    targets: [{ platform: "local", profile: "slow-link" }],
    profiles: [custom],
  });
  assert.equal(plan.profiles?.[0]?.roundTripMs, 20);
  assert.equal(plan.profiles?.[0]?.lossPercent, 0);
  assert.match(
    problems({ ...minimal, targets: [{ platform: "local", profile: "slow-lnk" }], profiles: [custom] }),
    /targets\.0\.profile: unknown lab profile "slow-lnk" \(allowed: default-625, raised-3000, seed-oregon-2026, seed-tokyo-2026, slow-link;/,
  );
  assert.match(
    problems({ ...minimal, profiles: [{ ...custom, download: [{ memoryMb: 128, megabitsPerSecond: -5 }] }] }),
    /profiles\.0\.download\.0\.megabitsPerSecond: /,
  );
  assert.match(
    problems({
      ...minimal,
      profiles: [
        {
          ...custom,
          upload: [
            { memoryMb: 2048, megabitsPerSecond: 1 },
            { memoryMb: 1024, megabitsPerSecond: 2 },
          ],
        },
      ],
    }),
    /profiles\.0\.upload: points must be sorted by memoryMb/,
  );
  assert.match(
    problems({ ...minimal, profiles: [{ ...custom, roundTripMs: -1 }] }),
    /profiles\.0\.roundTripMs: /,
  );
  assert.match(
    problems({ ...minimal, profiles: [{ ...custom, lossPercent: 70 }] }),
    /profiles\.0\.lossPercent: /,
  );
  assert.match(
    problems({ ...minimal, profiles: [{ ...custom, name: "default-625" }] }),
    /profiles\.0\.name: "default-625" is a built-in profile/,
  );
  assert.match(
    problems({ ...minimal, profiles: [custom, custom] }),
    /profiles\.1\.name: "slow-link" is defined twice/,
  );
  assert.match(
    problems({ ...minimal, profiles: [{ ...custom, colour: 1 }] }),
    /profiles\.0: Unrecognized key/,
  );
});
