import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { RunManifest } from "../../src/results/manifest.js";
import type { ScheduleExecutionPlan } from "../../src/scheduled-studies/execution-plan.js";
import { beginRun, readJsonObject } from "../../src/scheduled-studies/recorder.js";
import { runKeys, scheduleKeys } from "../../src/scheduled-studies/schedule-naming.js";
import { type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";
import { s3rverClient } from "./local-state-machine.js";

/**
 * What a loaded host showed (issue 25): the recorder read "Unexpected end of JSON input" from a
 * manifest it had just put. The test S3 server answered a PUT before its file was written, so a
 * GET right after read a short file. Here the disk is slow on purpose: every write through
 * fs.write (the store's file streams) takes 1 ms per 20 bytes, so an object's data lands long
 * after its 32-byte MD5 file. A GET after the PUT's answer must still read the whole object.
 */
const bucket = "lnb-read-after-write";
let s3rver: S3rverInstance | undefined;
let s3: S3Client;
const realWrite = fs.write;

function withSlowDisk<T>(body: () => Promise<T>): Promise<T> {
  const slowWrite = (...args: unknown[]) => {
    const data = args[1] as { length?: number } | undefined;
    setTimeout(() => (realWrite as (...a: unknown[]) => void)(...args), (data?.length ?? 0) / 20);
  };
  (fs as { write: unknown }).write = slowWrite;
  return body().finally(() => {
    (fs as { write: unknown }).write = realWrite;
  });
}

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
    platforms: {},
  },
  warmups: [],
  testObjectBytes: [],
  tasks: [],
  taskCount: 0,
} as unknown as ScheduleExecutionPlan;

before(async () => {
  s3rver = await startS3rver({ buckets: [bucket] });
  s3 = s3rverClient(s3rver.endpoint);
});
after(async () => {
  s3.destroy();
  await s3rver?.close();
});

test("on a slow disk, the recorder reads back the whole plan and manifest it just put", async () => {
  await withSlowDisk(async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: scheduleKeys("daily").execution,
        Body: JSON.stringify(plan),
      }),
    );
    const started = await beginRun(
      { s3, region: "us-west-2", invokeLatest: async () => assert.fail("no invocation") },
      {
        step: "begin",
        bucket,
        schedule: "daily",
        executionName: "exec-1",
        startTime: "2026-12-02T06:00:00Z",
      },
    );
    const manifest = await readJsonObject<RunManifest>(s3, bucket, runKeys(started.runId).manifest);
    assert.equal(manifest?.runId, started.runId);
    assert.equal(manifest?.completedAt, null);
  });
});

test("on a slow disk, a GET right after each PUT of one key reads that PUT's bytes, whole", async () => {
  await withSlowDisk(async () => {
    for (let version = 0; version < 3; version += 1) {
      const body = JSON.stringify({ version, padding: "x".repeat(4_000 * (version + 1)) });
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "overwritten.json", Body: body }));
      const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: "overwritten.json" }));
      const text = await (response.Body as { transformToString(): Promise<string> }).transformToString();
      assert.equal(text.length, body.length, `version ${version}`);
      assert.equal(text, body);
    }
  });
});
