import assert from "node:assert/strict";
import { test } from "node:test";
import { addScheduleStack } from "../../../src/platforms/aws/nested-stacks.js";
import { operatorPolicyActions } from "../../../src/platforms/aws/operator-policy.js";
import { withPermissionsBoundary } from "../../../src/platforms/aws/organization.js";
import { resourceSchemaSource, resourceSchemas } from "../../../src/platforms/aws/resource-schemas.js";
import {
  omittedSchemaPermissions,
  resourceSchema,
  stackOperationPermissions,
} from "../../../src/platforms/aws/schema-permissions.js";
import { buildStackTemplate, type CfnTemplate } from "../../../src/platforms/aws/stack-template.js";
import { buildScheduleTemplate } from "../../../src/scheduled-studies/schedule-template.js";

/**
 * The printed operator policy against the published resource schemas of every resource type our
 * templates hold: each permission a schema's create, read, update, delete or tagging lists is
 * granted, or left out in schema-permissions.ts for a property none of our templates sets.
 */

const boundary = "arn:aws:iam::123456789012:policy/boundary";
const vpcId = "vpc-0123456789abcdef0";
const subnetId = "subnet-0123456789abcdef0";

/** Every template the tool deploys, each with everything it can hold. */
function allTemplates(): CfnTemplate[] {
  const region = buildStackTemplate({
    agentCodeKey: "agent/x.zip",
    arch: "arm64",
    memoryMb: 1024,
    timeoutSeconds: 900,
    server: {
      instanceType: "c8gn.large",
      ports: 1,
      generation: 1,
      expiresAt: "2026-11-30T00:00:00Z",
      idleTimeoutSeconds: 30,
      imageId: "ami-0123456789abcdef0",
      vpcId,
      subnetId,
    },
    vpc: { vpcId, subnetIds: [subnetId], securityGroupId: null },
  });
  const schedule = buildScheduleTemplate({
    name: "daily",
    expression: "rate(1 day)",
    timezone: "UTC",
    variants: [{ memoryMb: 1024, arch: "arm64" }],
    maxConcurrency: 2,
    mode: "distributed",
    agentTimeoutSeconds: 900,
  });
  const withSchedule = addScheduleStack(region, {
    name: "daily",
    templateKey: "schedules/daily/template-0123.json",
    recorderCodeKey: "agent/recorder-0123.zip",
  });
  return [withPermissionsBoundary(withSchedule, boundary), withPermissionsBoundary(schedule, boundary)];
}

/** The top-level properties our templates set, by resource type. */
function propertiesInUse(): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  for (const template of allTemplates())
    for (const resource of Object.values(template.Resources)) {
      const set = used.get(resource.Type) ?? new Set<string>();
      for (const property of Object.keys(resource.Properties ?? {})) set.add(property);
      used.set(resource.Type, set);
    }
  return used;
}

// IAM action names are case-insensitive (one schema writes "S3:GetBucketWebsite")
const grantedLowerCase = () => new Set([...operatorPolicyActions()].map((action) => action.toLowerCase()));

test("a published schema is kept for exactly the resource types our templates hold", () => {
  const inUse = [...propertiesInUse().keys()].sort();
  assert.ok(inUse.includes("AWS::EC2::Instance") && inUse.includes("AWS::Scheduler::Schedule"));
  for (const type of inUse) assert.doesNotThrow(() => resourceSchema(type), type);
  assert.deepEqual(Object.keys(resourceSchemas).sort(), inUse, "a schema kept for a type no longer used");
  assert.match(resourceSchemaSource.commit, /^[0-9a-f]{40}$/);
  for (const schema of Object.values(resourceSchemas))
    assert.match(schema.schemaChanged, /^\d{4}-\d{2}-\d{2}$/);
});

test("every handler permission of those schemas is granted or left out with its reason", () => {
  const granted = grantedLowerCase();
  const missing: string[] = [];
  for (const [type, schema] of Object.entries(resourceSchemas))
    for (const permission of stackOperationPermissions(schema))
      if (!granted.has(permission.toLowerCase()) && !omittedSchemaPermissions[type]?.[permission])
        missing.push(`${type} ${permission}`);
  assert.deepEqual(missing, [], "grant them in operator-policy.ts, or say why not in schema-permissions.ts");
  // the ones the issue found missing
  for (const action of [
    "lambda:GetFunctionCodeSigningConfig",
    "lambda:GetFunctionRecursionConfig",
    "lambda:GetRuntimeManagementConfig",
  ])
    assert.ok(granted.has(action.toLowerCase()), action);
});

test("each omission is for a permission the schema lists, and for a property no template of ours sets", () => {
  const used = propertiesInUse();
  const granted = grantedLowerCase();
  for (const [type, omissions] of Object.entries(omittedSchemaPermissions)) {
    const schema = resourceSchema(type);
    const listed = new Set([...stackOperationPermissions(schema)]);
    for (const [permission, omission] of Object.entries(omissions)) {
      assert.ok(listed.has(permission), `${type}: ${permission} is not in its schema (stale omission)`);
      if ("unusedProperties" in omission)
        for (const property of omission.unusedProperties) {
          assert.ok(schema.properties.includes(property), `${type} has no property ${property}`);
          assert.ok(
            !used.get(type)?.has(property),
            `${type}.${property} is set by a template now: grant ${permission} in operator-policy.ts`,
          );
        }
      if ("authorizedAs" in omission)
        assert.ok(
          granted.has(omission.authorizedAs.toLowerCase()),
          `${permission} needs ${omission.authorizedAs}`,
        );
    }
  }
});

test("the check can fail: a template that sets a left-out property is caught", () => {
  const used = propertiesInUse();
  const lambdaProperties = used.get("AWS::Lambda::Function") ?? new Set<string>();
  assert.ok(!lambdaProperties.has("KmsKeyArn"));
  const omission = omittedSchemaPermissions["AWS::Lambda::Function"]?.["kms:Decrypt"];
  assert.deepEqual(omission, { unusedProperties: ["KmsKeyArn"] });
  // a schema that gains a permission nobody granted is caught too
  const schema = resourceSchema("AWS::Lambda::Function");
  const grown = {
    ...schema,
    handlers: { ...schema.handlers, read: [...schema.handlers.read, "lambda:GetNewThing"] },
  };
  const granted = grantedLowerCase();
  const gaps = [...stackOperationPermissions(grown)].filter(
    (p) => !granted.has(p.toLowerCase()) && !omittedSchemaPermissions["AWS::Lambda::Function"]?.[p],
  );
  assert.deepEqual(gaps, ["lambda:GetNewThing"]);
});
