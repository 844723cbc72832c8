import assert from "node:assert/strict";
import { test } from "node:test";
import type { S3Client } from "@aws-sdk/client-s3";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { ensureTestObject } from "../../src/platforms/aws/test-object.js";
import type { LabState } from "../../src/platforms/local/state-file.js";
import { TestObjectSeeder } from "../../src/platforms/local/test-object-seeding.js";
import { testObjectSizes } from "../../src/probes/registry.js";
import { testObjectSizeProblem } from "../../src/probes/s3/test-object-size.js";

const mib = 1_048_576;

test("one test-object size rule for every platform: whole MiB from 1 MiB to 5 TiB", () => {
  for (const bytes of [mib, 384 * mib, 5_242_880 * mib]) assert.equal(testObjectSizeProblem(bytes), null);
  // the lab used to take any integer from 1 MiB up, which AWS then refused
  for (const bytes of [mib + 1, 1.5 * mib, mib - 1, 0, 5_242_881 * mib, Number.NaN])
    assert.match(
      testObjectSizeProblem(bytes) ?? "",
      /^bytes: .* not allowed \(allowed: a whole number of MiB, 1-5,242,880 MiB\)$/,
    );
});

test("a plan's test objects: one per distinct size, in first-use order, none for probes that read none", () => {
  const cells = expandPlan(
    validatePlan({
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024, 2048],
      probes: [
        { kind: "s3-get", objectMib: 384, concurrency: [1, 4] },
        { kind: "iperf3" },
        { kind: "s3-get", objectMib: 16 },
      ],
    }),
    "x86_64",
  );
  assert.deepEqual(testObjectSizes(cells.map((cell) => cell.probe)), [384 * mib, 16 * mib]);
});

test("the lab and AWS refuse the same sizes with the same words, before any request", async () => {
  const lab = new TestObjectSeeder({} as LabState, async () => "");
  const never = async () => assert.fail("no request may be made");
  for (const bytes of [mib + 1, 3 * mib + mib / 2]) {
    const words = testObjectSizeProblem(bytes) ?? "";
    await assert.rejects(lab.ensure(bytes), { message: words });
    await assert.rejects(
      ensureTestObject({} as S3Client, { bucket: "b", region: "us-east-1" }, bytes, never),
      {
        message: words,
      },
    );
  }
});
