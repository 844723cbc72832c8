import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { planJsonSchemaText } from "../../src/plan/plan-json-schema.js";
import {
  platformDescriptors,
  platformNamed,
  targetKey,
  targetName,
  targetSchema,
  targetsOn,
} from "../../src/plan/platforms.js";

test("each registered platform's target is a plan target, named and keyed by its descriptor", () => {
  const targets = [
    { platform: "local", profile: "default-625" },
    { platform: "aws", region: "eu-west-1" },
  ] as const;
  assert.deepEqual(
    platformDescriptors.map((descriptor) => descriptor.name),
    targets.map((target) => target.platform),
    "every platform has a target here",
  );
  for (const input of targets) {
    const target = targetSchema.parse(input);
    assert.equal(platformNamed(target.platform).name, target.platform);
  }
  assert.deepEqual(targets.map(targetKey), ["local:default-625", "aws:eu-west-1"]);
  assert.deepEqual(targets.map(targetName), ["default-625", "eu-west-1"]);
  assert.deepEqual(
    targetsOn(targets, "aws").map((target) => target.region),
    ["eu-west-1"],
  );
  assert.throws(() => targetSchema.parse({ platform: "gcp", region: "us-central1" }), /platform/);
});

test("the descriptor decides a target's architectures and VPC variants in the expansion", () => {
  const plan = validatePlan({
    targets: [
      { platform: "local", profile: "default-625" },
      { platform: "aws", region: "us-west-2" },
    ],
    memoryMb: [1024],
    architectures: ["arm64", "x86_64"],
    vpc: [false, true],
    probes: [{ kind: "iperf3" }],
  });
  const cells = expandPlan(plan, "x86_64");
  const axes = (platform: string) =>
    cells
      .filter((cell) => cell.target.platform === platform)
      .map((cell) => `${cell.arch}/${cell.vpc === true ? "vpc" : "novpc"}`);
  assert.deepEqual(axes("local"), ["x86_64/novpc"], "the lab: the host's architecture, no VPC");
  assert.deepEqual(axes("aws"), ["arm64/novpc", "arm64/vpc", "x86_64/novpc", "x86_64/vpc"]);
});

test("a platform's own target check reaches the plan's errors with its field", () => {
  assert.throws(
    () =>
      validatePlan({
        targets: [{ platform: "local", profile: "no-such" }],
        memoryMb: [1024],
        probes: [{ kind: "iperf3" }],
      }),
    (error: Error & { problems?: string[] }) =>
      (error.problems ?? []).some((p) => /^targets\.0\.profile: unknown lab profile "no-such"/.test(p)),
  );
});

test("plan.schema.json's targets are the registry's, one branch per platform", async () => {
  const schema = JSON.parse(planJsonSchemaText()) as {
    properties: { targets: { items: { oneOf?: Array<{ properties: { platform: { const: string } } }> } } };
  };
  const branches = schema.properties.targets.items.oneOf ?? [];
  assert.deepEqual(
    branches.map((branch) => branch.properties.platform.const),
    platformDescriptors.map((descriptor) => descriptor.name),
  );
  const committed = await readFile(new URL("../../schema/plan.schema.json", import.meta.url), "utf8");
  assert.equal(committed, planJsonSchemaText(), "schema/plan.schema.json is up to date (npm run schema)");
});
