import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { handleEvent } from "../../../src/agent/handler.js";
import { ensureTestObject } from "../../../src/platforms/aws/test-object.js";
import type { InvocationOutcome } from "../../../src/results/invocation-outcome.js";

/**
 * ensureTestObject on a real S3-compatible server: the object is made by the agent's s3-put
 * probe (here in-process through handleEvent, the same code a Lambda invocation runs), then
 * checked by HEAD.
 */
describe("ensureTestObject on s3rver", () => {
  const directory = mkdtempSync(join(tmpdir(), "lnb-aws-testobj-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: [{ name: "lnb-test-objects" }],
  }) as { run(): Promise<{ port: number }>; close(): Promise<void> };
  let endpoint = "";
  let s3: S3Client;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  before(async () => {
    const address = await server.run();
    endpoint = `http://127.0.0.1:${address.port}`;
    // the agent's probe takes credentials from the standard chain, as on Lambda
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    s3 = new S3Client({
      region: "us-east-1",
      endpoint,
      forcePathStyle: true,
      requestChecksumCalculation: "WHEN_REQUIRED",
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
  });
  after(async () => {
    s3?.destroy();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  });

  const inProcess = async (event: unknown): Promise<InvocationOutcome> => {
    const response = await handleEvent(event);
    return {
      response,
      failure: null,
      startedAt: response.startedAt,
      durationSeconds: response.durationSeconds,
    };
  };

  test("an object of the right size already there: HEAD only, no s3-put", async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket: "lnb-test-objects",
        Key: "test-objects/object-1048576-bytes",
        Body: Buffer.alloc(1_048_576),
      }),
    );
    let invoked = 0;
    const key = await ensureTestObject(
      s3,
      { bucket: "lnb-test-objects", region: "us-east-1", endpoint, pathStyle: true },
      1_048_576,
      async (event) => {
        invoked++;
        return inProcess(event);
      },
    );
    assert.equal(key, "test-objects/object-1048576-bytes");
    assert.equal(invoked, 0);
  });

  test("missing: created by the agent's s3-put, then verified by HEAD", async () => {
    const probe = await handleEvent({
      probe: "s3-put",
      bucket: "lnb-test-objects",
      key: "test-objects/probe-check",
      sizeMib: 1,
      endpoint,
      pathStyle: true,
      region: "us-east-1",
    });
    assert.ok(probe.ok, JSON.stringify(probe));
    const key = await ensureTestObject(
      s3,
      { bucket: "lnb-test-objects", region: "us-east-1", endpoint, pathStyle: true },
      6 * 1_048_576,
      inProcess,
    );
    assert.equal(key, "test-objects/object-6291456-bytes");
  });

  test("an s3-put failure is an error naming the probe's failure, not a silent success", async () => {
    await assert.rejects(
      ensureTestObject(
        s3,
        { bucket: "lnb-test-objects", region: "us-east-1", endpoint, pathStyle: true },
        2 * 1_048_576,
        async () => ({
          response: null,
          failure: { kind: "out-of-memory", message: "Runtime.OutOfMemory" },
          startedAt: new Date().toISOString(),
          durationSeconds: 1,
        }),
      ),
      /s3-put of test-objects\/object-2097152-bytes failed \(out-of-memory\)/,
    );
  });
});
