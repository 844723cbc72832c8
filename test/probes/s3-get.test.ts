import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { isProbeError } from "../../src/probes/probe-error.js";
import { runS3GetProbe } from "../../src/probes/s3/run-s3-get.js";
import { runS3PutProbe } from "../../src/probes/s3/run-s3-put.js";
import { cliArgv } from "../helpers/cli-process.js";
import type { FaultProxy } from "../helpers/fault-proxy.js";
import { getEvent, putEvent, testDependencies } from "../helpers/s3-events.js";
import { type S3TestServers, startS3TestServers } from "../helpers/s3-servers.js";
import { S3RVER_CREDENTIALS, type S3rverInstance } from "../helpers/s3rver-instance.js";
import type { TestTls } from "../helpers/tls-ca.js";

// s3rver over HTTPS (a CA made by openssl for this test), the object created by our own s3-put
const MIB = 1_048_576;
const OBJECT_MIB = 7.5;
let servers: S3TestServers | undefined;
let tls: TestTls;
let server: S3rverInstance;
let proxy: FaultProxy;
let plain: S3rverInstance;

before(async () => {
  servers = await startS3TestServers("lnb-get");
  ({ tls, server, plain, proxy } = servers);
  const put = await runS3PutProbe(
    putEvent({
      endpoint: server.endpoint,
      caPem: tls.caPem,
      bucket: "lnb-get",
      key: "dir/object 1.bin",
      sizeMib: OBJECT_MIB,
      partMib: 5,
      concurrency: 2,
    }),
    testDependencies,
  );
  assert.equal(put.detail.bytes, OBJECT_MIB * MIB);
  // the plain-HTTP server behind the fault proxy serves "k"
  await runS3PutProbe(
    putEvent({
      endpoint: plain.endpoint,
      bucket: "lnb-get",
      key: "k",
      sizeMib: 5,
      partMib: 5,
      concurrency: 1,
    }),
    testDependencies,
  );
});

after(async () => {
  await servers?.close();
});

const tlsGet = (fields: Record<string, unknown>) =>
  getEvent({
    endpoint: server.endpoint,
    caPem: tls.caPem,
    bucket: "lnb-get",
    key: "dir/object 1.bin",
    chunkMib: 1,
    ...fields,
  });

test("s3-get downloads the whole object over HTTPS with parallel ranged GETs", async () => {
  const outcome = await runS3GetProbe(tlsGet({ concurrency: 4 }), testDependencies);
  const { detail, summary } = outcome;
  assert.equal(detail.bytes, OBJECT_MIB * MIB);
  assert.equal(detail.objectBytes, OBJECT_MIB * MIB);
  assert.equal(detail.parts, 8, "7.5 MiB in 1 MiB parts");
  assert.equal(detail.connections, 4);
  assert.equal(detail.retries, 0);
  assert.equal(detail.ttfb.count, 8);
  assert.ok(detail.ttfb.p50Seconds !== null && detail.ttfb.maxSeconds !== null);
  assert.ok(detail.ttfb.p50Seconds <= detail.ttfb.maxSeconds);
  assert.ok(detail.seconds > 0 && detail.mbps > 0);
  assert.ok(Math.abs(detail.mbps - (detail.bytes * 8) / detail.seconds / 1e6) < 1e-6);
  assert.ok(detail.cpuSeconds > 0);
  assert.equal(
    detail.samples.bytes.reduce((a, b) => a + b, 0),
    detail.bytes,
    "the 250 ms samples add up to the bytes",
  );
  assert.equal(summary?.direction, "download");
  assert.equal(summary?.bytes, detail.bytes);
  // the seed's timing: set-up, HEAD and transfer; `seconds` stays the transfer alone
  assert.equal(summary?.wholeSeconds, detail.wholeSeconds);
  assert.ok(detail.wholeSeconds >= detail.seconds + detail.headSeconds, "whole covers HEAD and transfer");
  assert.equal(summary?.seconds, detail.seconds);
  const { samples } = detail;
  const last = samples.bytes.length - 1;
  assert.ok(
    Math.abs((samples.startSeconds[last] ?? 0) + (samples.durationSeconds[last] ?? 0) - detail.seconds) <
      1e-6,
    "the measured intervals cover the transfer",
  );
});

test("a single stream and a chunk larger than the object work too", async () => {
  const single = await runS3GetProbe(tlsGet({ concurrency: 1, chunkMib: 64 }), testDependencies);
  assert.equal(single.detail.bytes, OBJECT_MIB * MIB);
  assert.equal(single.detail.parts, 1);
  assert.equal(single.detail.connections, 1);
});

test("concurrency auto records the connection count it chose", async () => {
  const outcome = await runS3GetProbe(tlsGet({ concurrency: "auto", chunkMib: 1 }), testDependencies);
  assert.equal(outcome.detail.bytes, OBJECT_MIB * MIB);
  assert.equal(outcome.detail.concurrency, "auto");
  assert.ok(outcome.detail.connections >= 1 && outcome.detail.connections <= 8);
  assert.ok(Array.isArray(outcome.detail.rampSteps));
});

test("every ranged GET carries If-Match with the HEAD's ETag", async () => {
  proxy.setRules([]);
  const outcome = await runS3GetProbe(
    getEvent({ endpoint: proxy.endpoint, bucket: "lnb-get", key: "k", chunkMib: 1, concurrency: 2 }),
    testDependencies,
  );
  const gets = proxy.requests.filter((request) => request.method === "GET");
  assert.equal(gets.length, 5);
  for (const get of gets) assert.equal(get.ifMatch, outcome.detail.etag);
  assert.deepEqual(gets.map((get) => get.range).sort(), [
    "bytes=0-1048575",
    "bytes=1048576-2097151",
    "bytes=2097152-3145727",
    "bytes=3145728-4194303",
    "bytes=4194304-5242879",
  ]);
});

async function expectProbeError(promise: Promise<unknown>, kind: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isProbeError(error), `a ProbeError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

test("NoSuchKey and NoSuchBucket name the bucket and the key", async () => {
  await expectProbeError(
    runS3GetProbe(tlsGet({ key: "missing/key" }), testDependencies),
    "not-found",
    /s3:\/\/lnb-get\/missing\/key.*NoSuchKey/,
  );
  await expectProbeError(
    runS3GetProbe(tlsGet({ bucket: "no-such-bucket" }), testDependencies),
    "not-found",
    /s3:\/\/no-such-bucket\/dir\/object 1\.bin.*NoSuchBucket/,
  );
});

test("unknown credentials: s3rver's own InvalidAccessKeyId, clearly", async () => {
  const stranger = async () => ({ accessKeyId: "AKIAUNKNOWN", secretAccessKey: "nope" });
  await expectProbeError(
    runS3GetProbe(tlsGet({}), { credentials: stranger }),
    "auth-failed",
    /s3:\/\/lnb-get\/dir\/object 1\.bin.*InvalidAccessKeyId/,
  );
});

// s3rver does not verify SigV4 signatures nor apply policies, so these two come from the
// proxy, as the exact XML error documents S3 returns
test("AccessDenied and SignatureDoesNotMatch are reported by name, with bucket and key", async () => {
  const event = getEvent({ endpoint: proxy.endpoint, bucket: "lnb-get", key: "k", maxRetries: 1 });
  proxy.setRules([{ times: 10, fault: { kind: "error", status: 403, code: "AccessDenied" } }]);
  await expectProbeError(
    runS3GetProbe(event, testDependencies),
    "access-denied",
    /s3:\/\/lnb-get\/k.*AccessDenied/,
  );
  proxy.setRules([{ times: 10, fault: { kind: "error", status: 403, code: "SignatureDoesNotMatch" } }]);
  await expectProbeError(
    runS3GetProbe(event, testDependencies),
    "signature-mismatch",
    /s3:\/\/lnb-get\/k.*SignatureDoesNotMatch/,
  );
  // a 403 on a part (after a good HEAD) is not retried
  proxy.setRules([{ method: "GET", times: 1, fault: { kind: "error", status: 403, code: "AccessDenied" } }]);
  await expectProbeError(runS3GetProbe(event, testDependencies), "access-denied", /AccessDenied/);
  assert.equal(proxy.requests.filter((request) => request.method === "GET").length, 1);
});

test("an object that changes mid-download fails with PreconditionFailed, not a wrong result", async () => {
  // the object changed after the HEAD: S3 answers the If-Match GET with 412
  proxy.setRules([
    { method: "GET", skip: 1, times: 1, fault: { kind: "error", status: 412, code: "PreconditionFailed" } },
  ]);
  await expectProbeError(
    runS3GetProbe(
      getEvent({ endpoint: proxy.endpoint, bucket: "lnb-get", key: "k", chunkMib: 1, concurrency: 1 }),
      testDependencies,
    ),
    "precondition-failed",
    /s3:\/\/lnb-get\/k.*PreconditionFailed.*changed/,
  );
});

test("the CLI prints one JSON object with bytes, seconds, mbps, cpuSeconds, retries", async () => {
  // asynchronous: the server runs in this process
  const result = await promisify(execFile)(
    process.execPath,
    cliArgv([
      "probe",
      "s3-get",
      "--endpoint",
      server.endpoint,
      "--bucket",
      "lnb-get",
      "--key",
      "dir/object 1.bin",
      "--path-style",
      "--ca-file",
      tls.caPath,
      "--concurrency",
      "3",
      "--chunk-mib",
      "2",
      "--json",
    ]),
    {
      env: {
        ...process.env,
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      },
      timeout: 60_000,
    },
  );
  const json = JSON.parse(result.stdout) as Record<string, unknown>;
  assert.equal(json.bytes, OBJECT_MIB * MIB);
  for (const field of ["seconds", "mbps", "cpuSeconds", "retries"])
    assert.equal(typeof json[field], "number", field);
  assert.equal(json.connections, 3);
  assert.ok(typeof json.ttfb === "object" && json.ttfb !== null);
});

test("the CLI refuses a bad --concurrency before any request", () => {
  const result = spawnSync(
    process.execPath,
    cliArgv(["probe", "s3-get", "--bucket", "b-b", "--key", "k", "--concurrency", "0"]),
    { encoding: "utf8", timeout: 30_000 },
  );
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /concurrency/);
});
