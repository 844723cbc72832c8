import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cellId } from "../../src/plan/cell.js";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { labFleetProblem } from "../../src/platforms/local/fleet-capacity.js";
import { readRecords } from "../../src/results/run-directory.js";
import { runPlan } from "../../src/runner/run-plan.js";
import { FleetCapacityError, fleetPortProblems } from "../../src/runner/run-target.js";
import { CompletedTasks, taskKey } from "../../src/runner/task-order.js";
import { LoopbackPlatform } from "../helpers/loopback-platform.js";

let parentDir: string;
before(async () => {
  parentDir = await mkdtemp(join(tmpdir(), "lnbr-fleet-"));
});
after(async () => {
  await rm(parentDir, { recursive: true, force: true });
});

const source = { preset: null, configPath: null, regions: null };

test("environments: each repetition invokes N at once, one server port each, one group id", async () => {
  const plan = validatePlan({
    name: "fleet",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    repetitions: 2,
    environments: [1, 3],
    probes: [{ kind: "iperf3", timeSeconds: 1, parallel: 1 }],
  });
  let platform: LoopbackPlatform | undefined;
  const result = await runPlan({
    start: { plan, parentDir, source },
    openPlatform: async (_target, needs) => {
      assert.equal(needs?.environments, 3, "the platform is told the largest fleet");
      platform = await LoopbackPlatform.open({ servers: 3, concurrency: 3 });
      return platform;
    },
  });
  assert.ok(platform);
  assert.equal(result.remaining, 0);
  assert.equal(platform.portCollisions, 0, "each member of a group has its own port");
  assert.equal(platform.maxInFlightSeen, 3, "a group of 3 runs at once, and nothing runs beside it");
  const { records } = await readRecords(result.dir);
  const measured = records.filter((r) => !r.warmup);
  assert.equal(measured.length, 2 * 1 + 2 * 3);
  const alone = measured.filter((r) => r.environments === 1);
  assert.ok(alone.every((r) => r.groupId === null && r.environmentIndex === 0));
  const fleet = measured.filter((r) => r.environments === 3);
  const groups = new Map<string, number[]>();
  for (const r of fleet)
    groups.set(r.groupId as string, [...(groups.get(r.groupId as string) ?? []), r.environmentIndex]);
  assert.equal(groups.size, 2, "one group per repetition");
  for (const indexes of groups.values()) assert.deepEqual(indexes.sort(), [0, 1, 2]);
  for (const r of measured) {
    assert.equal(r.ok, true, JSON.stringify(r.error));
    assert.ok(r.agentEndedAt && Number.isFinite(Date.parse(r.agentEndedAt)));
  }
  assert.equal(records.filter((r) => r.warmup).length, 3, "as many warm environments as the largest fleet");
});

test("a fleet larger than the platform allows is refused before anything runs", async () => {
  const plan = validatePlan({
    name: "too-big",
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    environments: [4],
    probes: [{ kind: "info" }],
  });
  let platform: LoopbackPlatform | undefined;
  await assert.rejects(
    runPlan({
      start: { plan, parentDir, source },
      openPlatform: async () => {
        platform = await LoopbackPlatform.open({ servers: 1, concurrency: 2 });
        return platform;
      },
    }),
    (error: Error) => {
      assert.ok(error instanceof FleetCapacityError);
      assert.match(error.message, /environments: 4 at once, but \S+ runs at most 2 invocations at once/);
      return true;
    },
  );
  assert.equal(platform?.invocations.length, 0, "nothing invoked");
});

test("a group cut short counts as not done: resume runs it again whole", () => {
  const plan = validatePlan({
    targets: [{ platform: "local", profile: "default-625" }],
    memoryMb: [1024],
    environments: [3],
    probes: [{ kind: "info" }],
  });
  const [cell] = expandPlan(plan);
  assert.ok(cell);
  const row = (groupId: string) => ({
    warmup: false,
    cellId: cell.id,
    repetition: 1,
    environments: 3,
    groupId,
  });
  const partial = new CompletedTasks([row("a"), row("a")]);
  assert.equal(partial.keys.size, 0);
  const whole = new CompletedTasks([row("a"), row("a"), row("b"), row("b"), row("b")]);
  assert.deepEqual([...whole.keys], [taskKey(cell.id, 1)]);
  // records made before fleets (no environments field) still count one by one
  assert.equal(new CompletedTasks([{ warmup: false, cellId: "x", repetition: 1 }]).keys.size, 1);
});

test("fleet sizes join cell ids only above 1, so ids of runs made before fleets stay", () => {
  const target = { platform: "local" as const, profile: "default-625" };
  const probe = validatePlan({ targets: [target], memoryMb: [1024], probes: [{ kind: "info" }] }).probes[0];
  assert.ok(probe);
  assert.equal(
    cellId(target, 1024, "x86_64", probe),
    cellId(target, 1024, "x86_64", probe, { environments: 1 }),
  );
  assert.notEqual(
    cellId(target, 1024, "x86_64", probe),
    cellId(target, 1024, "x86_64", probe, { environments: 4 }),
  );
  const cells = expandPlan(
    validatePlan({ targets: [target], memoryMb: [1024], environments: [1, 4], probes: [{ kind: "iperf3" }] }),
  );
  assert.deepEqual(
    cells.map((c) => [c.environments, c.probeLabel]),
    [
      [1, "iperf3 upload -P 4 -t 10s"],
      [4, "iperf3 upload -P 4 -t 10s x4 envs"],
    ],
  );
  assert.throws(
    () =>
      validatePlan({ targets: [target], memoryMb: [1024], environments: [0], probes: [{ kind: "info" }] }),
    /environments\.0: at least 1 environment/,
  );
});

test("the lab refuses a fleet the machine cannot hold, naming what runs out", () => {
  const shape = { memoryMb: 1024, cpuCores: 1024 / 1769, memoryLimitBytes: 1024 * 2 ** 20 };
  const host = { cores: 2, memoryBytes: 24 * 2 ** 30, environmentSlots: 8 };
  const s = shape as Parameters<typeof labFleetProblem>[0];
  assert.equal(labFleetProblem(s, 3, host), null);
  assert.match(
    labFleetProblem(s, 4, host) ?? "",
    /need 2\.32 cores of CPU share \(0\.58 each\), this machine has 2/,
  );
  assert.match(
    labFleetProblem(s, 9, host) ?? "",
    /the lab has 8 environments \(start it with more: lab up --environments 9\)/,
  );
  const big = { ...shape, memoryMb: 10240, cpuCores: 0.1, memoryLimitBytes: 10240 * 2 ** 20 } as typeof s;
  assert.match(
    labFleetProblem(big, 2, { ...host, memoryBytes: 16 * 2 ** 30 }) ?? "",
    /need 20\.0 GiB of memory/,
  );
});

test("an iperf3 fleet needs a server port per member", () => {
  const cells = expandPlan(
    validatePlan({
      targets: [{ platform: "aws", region: "us-west-2" }],
      memoryMb: [2048],
      environments: [1, 4],
      probes: [{ kind: "iperf3" }, { kind: "s3-get" }],
    }),
  );
  const tasks = cells.map((cell) => ({ cell, repetition: 1 }));
  assert.deepEqual(fleetPortProblems(tasks, 4), []);
  assert.deepEqual(
    fleetPortProblems(tasks, null),
    [],
    "no iperf3 server: the iperf3 cells fail on their own",
  );
  assert.match(
    fleetPortProblems(tasks, 2)[0] ?? "",
    /4 iperf3 tests at once need 4 server ports, the iperf3 server has 2 \(AWS: deploy --with-server --server-ports 4/,
  );
});
