import assert from "node:assert/strict";
import type { ResultRecord } from "../../src/results/result-record.js";
import { readManifest, readRecords } from "../../src/results/run-directory.js";
import { taskKey } from "../../src/runner/task-order.js";

/** Fields that come from the moment and the environment, not from what was planned. */
const measured = new Set<keyof ResultRecord>([
  "runId",
  "startedAt",
  "durationSeconds",
  "seconds",
  "bytes",
  "bitsPerSecond",
  "megabitsPerSecond",
  "cpuSeconds",
  "retransmits",
  "retries",
  "samples",
  "environmentId",
  "invocationNumber",
  "cold",
  "detail",
  "wholeSeconds",
  "iperf3",
  "received",
  "sent",
  "groupId",
  "agentEndedAt",
  "serverCpu",
]);

/**
 * The lab platform's own look at its server's CPU around an invocation: `run` on the lab takes
 * it; a scheduled execution records the Invoke task's result, which cannot carry it (on AWS
 * neither has it), so there it is null.
 */
const observedByTheLab = new Set<keyof ResultRecord>(["serverCpu"]);

function planned(record: ResultRecord): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([key]) => !measured.has(key as keyof ResultRecord)),
  );
}

/**
 * Two run directories hold the same records: the same cells, ids and repetitions (warm-ups
 * included), every field present in both with the same type, the planned fields equal; timing
 * and environment values may differ. Their manifests plan the same cells.
 */
export async function assertSameRecords(runDir: string, scheduledDir: string): Promise<ResultRecord[]> {
  const expected = (await readRecords(runDir)).records;
  const actual = (await readRecords(scheduledDir)).records;
  const byKey = (records: ResultRecord[]) =>
    new Map(records.map((r) => [taskKey(r.cellId, r.repetition), r]));
  const expectedByKey = byKey(expected);
  const actualByKey = byKey(actual);
  assert.equal(actual.length, expected.length, "as many records");
  assert.deepEqual(
    [...actualByKey.keys()].sort(),
    [...expectedByKey.keys()].sort(),
    "the same cell ids and repetitions",
  );
  for (const [key, want] of expectedByKey) {
    const got = actualByKey.get(key) as ResultRecord;
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${key}: the same fields`);
    for (const field of Object.keys(want) as Array<keyof ResultRecord>) {
      if (observedByTheLab.has(field) && got[field] === null) continue;
      assert.equal(
        got[field] === null ? "null" : typeof got[field],
        want[field] === null ? "null" : typeof want[field],
        `${key}.${field}: the same type (${JSON.stringify(got[field])?.slice(0, 80)} vs ${JSON.stringify(want[field])?.slice(0, 80)})`,
      );
    }
    assert.deepEqual(planned(got), planned(want), `${key}: the same planned fields`);
  }
  const runManifest = await readManifest(runDir);
  const scheduledManifest = await readManifest(scheduledDir);
  assert.deepEqual(scheduledManifest.cells, runManifest.cells, "the same cells");
  assert.deepEqual(scheduledManifest.plan, runManifest.plan, "the same plan");
  assert.ok(scheduledManifest.completedAt, "the scheduled run is complete");
  for (const record of actual) assert.equal(record.runId, scheduledManifest.runId);
  return actual;
}
