import assert from "node:assert/strict";
import { test } from "node:test";
import { validatePlan } from "../../src/plan/load-plan.js";
import { estimatePlan } from "../../src/runner/run-estimate.js";

/** The dry run's invocation count must be what the runner will invoke, warm-ups included. */
const plan = (environments: number[]) =>
  validatePlan({
    targets: [{ platform: "aws", region: "us-west-2" }],
    memoryMb: [1024, 10240],
    architectures: ["arm64"],
    probes: [{ kind: "s3-get", objectMib: 64, concurrency: 1, chunkMib: 8 }],
    repetitions: 2,
    environments,
  });

test("warm-ups: one per variant alone, the largest fleet's count per variant with fleets (as the runner warms)", () => {
  const alone = estimatePlan(plan([1]));
  // 2 sizes x 2 repetitions, plus one warm-up per size
  assert.equal(alone.invocations, 2 * 2 + 2);
  const fleets = estimatePlan(plan([1, 4]));
  // cells: 2 sizes x (1 + 4 environments) x 2 repetitions; warm-ups: 4 per size (the largest fleet)
  assert.equal(fleets.invocations, 2 * (1 + 4) * 2 + 2 * 4);
  assert.ok(fleets.gigabyteSeconds > alone.gigabyteSeconds);
});
