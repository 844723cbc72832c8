// biome-ignore-all lint/suspicious/noExplicitAny: asserts on the template and manifest as plain JSON
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub placeholders
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import type { RunManifest } from "../../src/results/manifest.js";
import type { ScheduleExecutionPlan } from "../../src/scheduled-studies/execution-plan.js";
import { beginRun, readJsonObject } from "../../src/scheduled-studies/recorder.js";
import { runKeys, scheduleKeys } from "../../src/scheduled-studies/schedule-naming.js";
import { buildScheduleTemplate } from "../../src/scheduled-studies/schedule-template.js";
import { type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";
import { AwsStub, json, jsonError, testCredentials } from "../platforms/aws/aws-stub.js";
import { s3rverClient } from "./local-state-machine.js";

/**
 * Issue 13: every scheduled run records the bandwidth quota in force at its start (quotas change
 * between runs), as `run` records it: facts.quotaBitsPerSecond and details.quota. The recorder's
 * `begin` on s3rver, Service Quotas on the stubbed transport with AWS's answers.
 */
const bucket = "lnb-quota";
let s3rver: S3rverInstance | undefined;
let s3: S3Client;

const plan = {
  schemaVersion: 1,
  schedule: "daily",
  expression: "rate(1 day)",
  mode: "inline",
  manifest: {
    schemaVersion: 1,
    toolVersion: "test",
    source: { preset: "seed", configPath: null, regions: ["us-west-2"] },
    plan: { name: "seed" },
    cells: [],
    platforms: {
      "aws:us-west-2": {
        platform: "aws",
        target: "us-west-2",
        emulated: false,
        unshaped: false,
        quotaBitsPerSecond: 625_000_000,
        // what `schedule create` read
        details: { quota: { code: "L-14320ECE", matchedBy: "code", valueMbps: 625, defaultMbps: 625 } },
      },
    },
  },
  warmups: [],
  testObjectBytes: [],
  tasks: [],
  taskCount: 0,
} as unknown as ScheduleExecutionPlan;

before(async () => {
  s3rver = await startS3rver({ buckets: [bucket] });
  s3 = s3rverClient(s3rver.endpoint);
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: scheduleKeys("daily").execution,
      Body: JSON.stringify(plan),
    }),
  );
});
after(async () => {
  s3.destroy();
  await s3rver?.close();
});

async function begin(answer: Parameters<AwsStub["on"]>[1], startTime: string) {
  const stub = new AwsStub().on("GetServiceQuota", answer);
  const quotas = new ServiceQuotasClient({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    maxAttempts: 1,
  });
  const started = await beginRun(
    {
      s3,
      region: "us-west-2",
      quotas,
      invokeLatest: async () => assert.fail("no invocation"),
      now: () => new Date(startTime),
    },
    { step: "begin", bucket, schedule: "daily", executionName: `exec-${startTime}`, startTime },
  );
  const manifest = await readJsonObject<RunManifest>(s3, bucket, runKeys(started.runId).manifest);
  assert.ok(manifest);
  assert.deepEqual(
    stub.requests.map((r) => [r.operation, r.input.ServiceCode, r.input.QuotaCode]),
    [["GetServiceQuota", "lambda", "L-14320ECE"]],
  );
  return manifest.platforms["aws:us-west-2"] as any;
}

test("raised since create: the run records 3000 Mbit/s in force, and what create saw", async () => {
  const facts = await begin(
    json({
      Quota: {
        ServiceCode: "lambda",
        QuotaCode: "L-14320ECE",
        QuotaName: "Network bandwidth per execution environment",
        Value: 3000,
      },
    }),
    "2026-12-01T06:00:00Z",
  );
  assert.equal(facts.quotaBitsPerSecond, 3_000_000_000);
  assert.deepEqual(facts.details.quota, {
    code: "L-14320ECE",
    valueMbps: 3000,
    defaultMbps: 625,
    source: "GetServiceQuota",
    readAt: "2026-12-01T06:00:00.000Z",
    valueMbpsAtCreate: 625,
  });
});

test("never raised (NoSuchResourceException): the AWS default is the quota in force", async () => {
  const facts = await begin(
    jsonError(
      "NoSuchResourceException",
      "The request failed because the specified service quota does not exist.",
    ),
    "2026-12-02T06:00:00Z",
  );
  assert.equal(facts.quotaBitsPerSecond, 625_000_000);
  assert.equal(facts.details.quota.source, "AWS default (never raised in this account)");
});

test("unreadable (AccessDeniedException): recorded as unknown with the reason; the run still begins", async () => {
  const facts = await begin(
    jsonError("AccessDeniedException", "User is not authorized to perform: servicequotas:GetServiceQuota"),
    "2026-12-03T06:00:00Z",
  );
  assert.equal(facts.quotaBitsPerSecond, null);
  assert.equal(facts.details.quota.source, "unreadable");
  assert.match(facts.details.quota.error, /^AccessDeniedException: User is not authorized/);
});

test("the recorder's role may read this one quota, nothing else of Service Quotas", () => {
  const template = buildScheduleTemplate({
    name: "daily",
    expression: "rate(1 day)",
    timezone: "UTC",
    variants: [{ memoryMb: 1024, arch: "arm64" }],
    maxConcurrency: 1,
    mode: "inline",
    agentTimeoutSeconds: 900,
  }) as any;
  const statements = template.Resources.RecorderRole.Properties.Policies.flatMap(
    (policy: any) => policy.PolicyDocument.Statement,
  );
  const quota = statements.filter((s: any) => JSON.stringify(s.Action).includes("servicequotas"));
  assert.deepEqual(quota, [
    {
      Sid: "ReadTheBandwidthQuota",
      Effect: "Allow",
      Action: "servicequotas:GetServiceQuota",
      Resource: {
        "Fn::Sub": "arn:${AWS::Partition}:servicequotas:${AWS::Region}:${AWS::AccountId}:lambda/L-14320ECE",
      },
    },
  ]);
});
