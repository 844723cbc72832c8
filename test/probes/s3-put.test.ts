import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { deflateRawSync } from "node:zlib";
import { isProbeError } from "../../src/probes/probe-error.js";
import { IncompressibleData } from "../../src/probes/s3/incompressible-data.js";
import { runS3GetProbe } from "../../src/probes/s3/run-s3-get.js";
import { runS3PutProbe } from "../../src/probes/s3/run-s3-put.js";
import type { FaultProxy } from "../helpers/fault-proxy.js";
import { getEvent, putEvent, testDependencies } from "../helpers/s3-events.js";
import { type S3TestServers, startS3TestServers } from "../helpers/s3-servers.js";
import type { S3rverInstance } from "../helpers/s3rver-instance.js";
import type { TestTls } from "../helpers/tls-ca.js";

const MIB = 1_048_576;
let servers: S3TestServers | undefined;
let tls: TestTls;
let server: S3rverInstance;
let plain: S3rverInstance;
let proxy: FaultProxy;

before(async () => {
  servers = await startS3TestServers("lnb-put");
  ({ tls, server, plain, proxy } = servers);
});

after(async () => {
  await servers?.close();
});

test("s3-put creates the object by multipart upload over HTTPS and verifies it with HEAD", async () => {
  const event = putEvent({
    endpoint: server.endpoint,
    caPem: tls.caPem,
    bucket: "lnb-put",
    key: "made/by put",
    sizeMib: 12,
    partMib: 5,
    concurrency: 3,
  });
  const { detail, summary } = await runS3PutProbe(event, testDependencies);
  assert.equal(detail.bytes, 12 * MIB);
  assert.equal(detail.parts, 3, "5 + 5 + 2 MiB");
  assert.equal(detail.verified.sizeBytes, 12 * MIB);
  assert.equal(detail.verified.etag.replace(/"/g, ""), detail.etag.replace(/"/g, ""));
  assert.equal(detail.retries, 0);
  assert.ok(detail.mbps > 0 && detail.cpuSeconds > 0);
  assert.equal(summary?.direction, "upload");
  assert.deepEqual(summary?.sent, {
    bytes: 12 * MIB,
    seconds: detail.seconds,
    bitsPerSecond: detail.bitsPerSecond,
    retransmits: detail.retransmits,
  });
  assert.equal(
    detail.samples.bytes.reduce((a, b) => a + b, 0),
    12 * MIB,
    "every byte sent is in the samples",
  );
  assert.deepEqual(server.openUploads("lnb-put"), [], "no upload left open");
  // and what was stored reads back whole
  const get = await runS3GetProbe(
    getEvent({
      endpoint: server.endpoint,
      caPem: tls.caPem,
      bucket: "lnb-put",
      key: "made/by put",
      chunkMib: 4,
      concurrency: 2,
    }),
    testDependencies,
  );
  assert.equal(get.detail.bytes, 12 * MIB);
});

test("the upload's clock runs to CompleteMultipartUpload's answer: the wait is in its seconds and rate, not in the link's samples", async () => {
  // S3 assembles the object before it answers; held here for 800 ms
  proxy.setRules([
    { method: "POST", pathIncludes: "uploadId=", times: 1, fault: { kind: "delay", milliseconds: 800 } },
  ]);
  const { detail, summary } = await runS3PutProbe(
    putEvent({
      endpoint: proxy.endpoint,
      bucket: "lnb-put",
      key: "completed-late",
      sizeMib: 10,
      partMib: 5,
      concurrency: 2,
    }),
    testDependencies,
  );
  assert.deepEqual(
    proxy.requests.filter((r) => r.fault === "delay").map((r) => r.method),
    ["POST"],
    "the completion was held",
  );
  // a timer may fire up to a millisecond early
  assert.ok(detail.seconds >= 0.799, `the upload's ${detail.seconds} s hold the 800 ms wait`);
  assert.ok(detail.completeSeconds >= 0.799, `completion waited ${detail.completeSeconds} s`);
  assert.ok(detail.seconds > detail.completeSeconds, `${detail.seconds} s in all`);
  assert.equal(detail.bitsPerSecond, (10 * MIB * 8) / detail.seconds);
  assert.equal(summary?.seconds, detail.seconds);
  assert.equal(summary?.sent?.seconds, detail.seconds);
  // the samples are the link's: they end at the last part's answer, before the completion's wait
  const sampledSeconds = detail.samples.durationSeconds.reduce((a, b) => a + b, 0);
  assert.ok(
    sampledSeconds <= detail.seconds - 0.799 + 1e-9,
    `${sampledSeconds} s sampled of ${detail.seconds}`,
  );
  assert.equal(
    detail.samples.bytes.reduce((a, b) => a + b, 0),
    10 * MIB,
  );
});

test("generated parts are incompressible and differ from each other", () => {
  const data = new IncompressibleData(MIB);
  const one = data.part(1, MIB);
  const two = data.part(2, MIB);
  assert.notEqual(createHash("md5").update(one).digest("hex"), createHash("md5").update(two).digest("hex"));
  assert.ok(deflateRawSync(one).length > 0.99 * MIB, "deflate cannot shrink it");
});

test("a part failing with 503 SlowDown is sent again and the upload completes", async () => {
  proxy.setRules([{ method: "PUT", times: 1, fault: { kind: "error", status: 503, code: "SlowDown" } }]);
  const { detail } = await runS3PutProbe(
    putEvent({
      endpoint: proxy.endpoint,
      bucket: "lnb-put",
      key: "retried",
      sizeMib: 10,
      partMib: 5,
      concurrency: 2,
    }),
    testDependencies,
  );
  assert.equal(detail.retries, 1);
  assert.equal(detail.verified.sizeBytes, 10 * MIB);
});

test("a failure aborts the multipart upload: no parts left behind", async () => {
  proxy.setRules([
    { method: "PUT", skip: 1, times: 1, fault: { kind: "error", status: 403, code: "AccessDenied" } },
  ]);
  await assert.rejects(
    runS3PutProbe(
      putEvent({
        endpoint: proxy.endpoint,
        bucket: "lnb-put",
        key: "denied",
        sizeMib: 15,
        partMib: 5,
        concurrency: 1,
      }),
      testDependencies,
    ),
    (error: unknown) => {
      assert.ok(isProbeError(error));
      assert.equal(error.kind, "access-denied");
      assert.match(error.message, /s3:\/\/lnb-put\/denied.*AccessDenied.*aborted/);
      return true;
    },
  );
  assert.ok(
    proxy.requests.some((request) => request.method === "DELETE" && request.path.includes("uploadId=")),
  );
  assert.deepEqual(plain.openUploads("lnb-put"), [], "the aborted upload's parts are gone");
});

test("retries exhausted on a part: fails clearly and aborts", async () => {
  proxy.setRules([
    { method: "PUT", times: 100, fault: { kind: "error", status: 500, code: "InternalError" } },
  ]);
  await assert.rejects(
    runS3PutProbe(
      putEvent({
        endpoint: proxy.endpoint,
        bucket: "lnb-put",
        key: "broken",
        sizeMib: 5,
        partMib: 5,
        concurrency: 1,
        maxRetries: 2,
      }),
      testDependencies,
    ),
    (error: unknown) => {
      assert.ok(isProbeError(error));
      assert.equal(error.kind, "retries-exhausted");
      assert.match(
        error.message,
        /UploadPart 1 of s3:\/\/lnb-put\/broken: gave up after 2 retries.*InternalError.*aborted/,
      );
      return true;
    },
  );
  assert.equal(proxy.requests.filter((request) => request.method === "PUT").length, 3);
  assert.deepEqual(plain.openUploads("lnb-put"), []);
});

test("a connection reset during a part is retried", async () => {
  proxy.setRules([{ method: "PUT", times: 1, fault: { kind: "reset", afterBytes: 0 } }]);
  const { detail } = await runS3PutProbe(
    putEvent({
      endpoint: proxy.endpoint,
      bucket: "lnb-put",
      key: "reset",
      sizeMib: 5,
      partMib: 5,
      concurrency: 1,
    }),
    testDependencies,
  );
  assert.equal(detail.retries, 1);
  assert.equal(detail.verified.sizeBytes, 5 * MIB);
});

test("more than 10,000 parts is refused before any request", async () => {
  proxy.setRules([]);
  await assert.rejects(
    runS3PutProbe(
      putEvent({ endpoint: proxy.endpoint, bucket: "lnb-put", key: "huge", sizeMib: 60_000, partMib: 5 }),
      testDependencies,
    ),
    /partMib: .*12000 parts; S3 allows at most 10000/,
  );
  assert.equal(proxy.requests.length, 0);
});
