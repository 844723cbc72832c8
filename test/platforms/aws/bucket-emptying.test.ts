import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { deleteObjects, emptyBucket } from "../../../src/platforms/aws/bucket-emptying.js";
import { AwsStub, testCredentials } from "./aws-stub.js";

/** Bucket emptying against a real S3-compatible server (s3rver on 127.0.0.1, port chosen by the OS). */
describe("emptyBucket on s3rver", () => {
  const directory = mkdtempSync(join(tmpdir(), "lnb-aws-s3rver-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: [{ name: "lnb-empty-me" }],
  }) as { run(): Promise<{ port: number }>; close(): Promise<void> };
  let s3: S3Client;
  before(async () => {
    const address = await server.run();
    s3 = new S3Client({
      region: "us-east-1",
      endpoint: `http://127.0.0.1:${address.port}`,
      forcePathStyle: true,
      // s3rver predates the SDK's default CRC32 trailers (aws-chunked uploads)
      requestChecksumCalculation: "WHEN_REQUIRED",
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
  });
  after(async () => {
    s3?.destroy();
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test("deletes every object; a second run finds nothing (idempotent)", async () => {
    for (let i = 0; i < 7; i++)
      await s3.send(
        new PutObjectCommand({
          Bucket: "lnb-empty-me",
          Key: `test-objects/object-${i}`,
          Body: Buffer.alloc(1024 * (i + 1)),
        }),
      );
    await s3.send(new PutObjectCommand({ Bucket: "lnb-empty-me", Key: "agent/abc.zip", Body: "zip" }));

    // no page size: s3rver cannot make continuation tokens under OpenSSL 3 (ERR_OSSL_EVP_UNSUPPORTED)
    const result = await emptyBucket(s3, "lnb-empty-me");
    assert.equal(result.deletedVersions, 8);
    assert.equal(result.bucketExisted, true);
    // s3rver lacks ListObjectVersions and ListMultipartUploads: the fallback is used and reported
    // (the version/delete-marker/abort paths run against AWS's XML in teardown.test.ts)
    assert.equal(result.versionsListed, false);
    assert.equal(result.uploadsListed, false);
    const left = await s3.send(new ListObjectsV2Command({ Bucket: "lnb-empty-me" }));
    assert.equal(left.KeyCount ?? 0, 0);

    const again = await emptyBucket(s3, "lnb-empty-me");
    assert.equal(again.deletedVersions, 0);
  });

  test("a bucket that does not exist is 'nothing to do', not an error", async () => {
    const result = await emptyBucket(s3, "lnb-no-such-bucket");
    assert.equal(result.bucketExisted, false);
  });
});

test("deleteObjects: a 200 from DeleteObjects that lists errors is a failure naming them, not a count", async () => {
  const stub = new AwsStub().on("DeleteObjects", {
    statusCode: 200,
    headers: { "content-type": "application/xml" },
    body: '<?xml version="1.0" encoding="UTF-8"?><DeleteResult><Error><Key>runs/a.json</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>',
  });
  const s3 = new S3Client({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
  });
  try {
    await assert.rejects(
      deleteObjects(s3, "lnb-bucket", [{ Key: "runs/a.json" }, { Key: "runs/b.json" }]),
      /could not delete 1 object\(s\) from lnb-bucket, first runs\/a\.json: AccessDenied Access Denied/,
    );
    assert.equal(stub.operations().filter((name) => name === "DeleteObjects").length, 1);
  } finally {
    s3.destroy();
  }
});
