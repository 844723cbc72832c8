import assert from "node:assert/strict";
import { test } from "node:test";
import type { Cell } from "../../src/plan/cell.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { type Platform, RunPausedError } from "../../src/runner/platform.js";
import { runTarget } from "../../src/runner/run-target.js";

/** Breakers 1/5 in the runner: a paused invocation is not recorded, so --resume redoes it. */
test("a RunPausedError stops the run; the paused cell is not recorded; a second pass completes", async () => {
  const cell: Cell = {
    id: "c1",
    target: { platform: "aws", region: "us-west-2" },
    memoryMb: 1024,
    arch: "arm64",
    probe: { kind: "info" },
    probeKey: "info",
    probeLabel: "info",
    repetitions: 3,
  };
  let expired = true;
  let calls = 0;
  const fake: Platform = {
    name: "aws",
    target: "us-west-2",
    facts: async () => ({
      platform: "aws",
      target: "us-west-2",
      emulated: false,
      unshaped: false,
      quotaBitsPerSecond: null,
      details: {},
    }),
    maxConcurrency: () => 1,
    prepare: async () => {},
    endpoints: () => ({}),
    ensureTestObject: async () => "k",
    invoke: async () => {
      calls += 1;
      if (calls === 2 && expired) throw new RunPausedError("credentials expired: log in again");
      return {
        response: {
          ok: true,
          probe: "info",
          summary: null,
          detail: {},
          invocation: { environmentId: "e", invocationNumber: calls, cold: false },
          startedAt: "2026-11-30T12:00:00Z",
          durationSeconds: 0.1,
        },
        failure: null,
        startedAt: "2026-11-30T12:00:00Z",
        durationSeconds: 0.1,
      };
    },
    dispose: async () => {},
  };
  const records: ResultRecord[] = [];
  const done = new Set<string>();
  const options = {
    runId: "r",
    platform: fake,
    cells: [cell],
    done,
    warmup: false,
    parallelism: 1,
    record: (record: ResultRecord) => {
      records.push(record);
      done.add(`${record.cellId}#${record.repetition}`);
    },
  };
  await assert.rejects(runTarget(options), /credentials expired/);
  assert.equal(records.length, 1, "only the invocation before the pause is recorded");
  expired = false;
  const resumed = await runTarget(options);
  assert.equal(resumed.recorded, 2, "resume redoes the paused repetition and the one never started");
  assert.deepEqual(records.map((r) => r.repetition).sort(), [1, 2, 3]);
});
