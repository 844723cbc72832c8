import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { isProbeError } from "../../src/probes/probe-error.js";
import { runS3GetProbe } from "../../src/probes/s3/run-s3-get.js";
import { runS3PutProbe } from "../../src/probes/s3/run-s3-put.js";
import { type FaultProxy, type FaultRule, startFaultProxy } from "../helpers/fault-proxy.js";
import { getEvent, putEvent, testDependencies } from "../helpers/s3-events.js";
import { type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";

// s3rver behind the fault-injecting proxy; a 3 MiB object read as 1 MiB parts, one at a time,
// so the faulted request is always the first part
const MIB = 1_048_576;
const SIZE = 3 * MIB;
let server: S3rverInstance;
let proxy: FaultProxy;

before(async () => {
  server = await startS3rver({ buckets: ["lnb-faults"] });
  await runS3PutProbe(
    putEvent({
      endpoint: server.endpoint,
      bucket: "lnb-faults",
      key: "obj",
      sizeMib: 3,
      partMib: 5,
      concurrency: 1,
    }),
    testDependencies,
  );
  proxy = await startFaultProxy(server.endpoint);
});

after(async () => {
  await proxy?.close();
  await server?.close();
});

function download(
  rules: FaultRule[],
  fields: Record<string, unknown> = {},
  backoff: { backoffBaseMs?: number; backoffRandom?: () => number } = {},
) {
  proxy.setRules(rules);
  return runS3GetProbe(
    getEvent({
      endpoint: proxy.endpoint,
      bucket: "lnb-faults",
      key: "obj",
      chunkMib: 1,
      concurrency: 1,
      requestTimeoutMs: 2_000,
      ...fields,
    }),
    { ...testDependencies, ...backoff },
  );
}

const rangesOfGets = () =>
  proxy.requests.filter((request) => request.method === "GET").map((request) => request.range);

test("a body cut short is resumed from the first missing byte: every byte exactly once", async () => {
  const { detail } = await download([
    { method: "GET", times: 1, fault: { kind: "short-body", afterBytes: 400_000 } },
  ]);
  assert.equal(detail.bytes, SIZE);
  assert.equal(detail.retries, 1);
  assert.deepEqual(rangesOfGets().slice(0, 2), ["bytes=0-1048575", "bytes=400000-1048575"]);
  assert.equal(proxy.deliveredBodyBytes(), SIZE, "nothing fetched twice");
});

test("a stalled connection times out and only the missing range is fetched again", async () => {
  const startMs = performance.now();
  // the stall lasts for ever; 2 s without data is a time a healthy request on a loaded host
  // never idles (at 500 ms, on a loaded host, four healthy parts timed out too)
  const { detail } = await download(
    [{ method: "GET", times: 1, fault: { kind: "stall", afterBytes: 500_000 } }],
    {
      requestTimeoutMs: 2_000,
    },
  );
  const seconds = (performance.now() - startMs) / 1000;
  assert.equal(detail.bytes, SIZE);
  assert.equal(detail.retries, 1);
  assert.deepEqual(rangesOfGets().slice(0, 2), ["bytes=0-1048575", "bytes=500000-1048575"]);
  assert.equal(proxy.deliveredBodyBytes(), SIZE);
  assert.ok(seconds >= 2 && seconds < 30, `took ${seconds} s`);
});

test("a connection reset mid-body is retried for the rest of the part", async () => {
  const { detail } = await download([
    { method: "GET", times: 1, fault: { kind: "reset", afterBytes: 300_000 } },
  ]);
  assert.equal(detail.bytes, SIZE);
  assert.equal(detail.retries, 1);
  const [first, retry] = rangesOfGets();
  assert.equal(first, "bytes=0-1048575");
  const match = /^bytes=(\d+)-1048575$/.exec(retry ?? "");
  assert.ok(match, `retry range ${retry}`);
  // the RST may drop bytes still in flight, never more than were sent
  assert.ok(Number(match[1]) > 0 && Number(match[1]) <= 300_000, `resumed at ${match[1]}`);
});

test("503 SlowDown and 500 InternalError are retried with backoff", async () => {
  const startMs = performance.now();
  const { detail } = await download(
    [
      { method: "GET", ranged: true, times: 2, fault: { kind: "error", status: 503, code: "SlowDown" } },
      {
        method: "GET",
        ranged: true,
        skip: 0,
        times: 1,
        fault: { kind: "error", status: 500, code: "InternalError" },
      },
    ],
    {},
    // full jitter (retry-backoff.ts) draws each wait in [0, ceiling): drawn at the top here, the
    // three waits are 49, 99 and 199 ms (ceilings 50, 100, 200), so the download cannot be quicker
    { backoffBaseMs: 50, backoffRandom: () => 0.999_999 },
  );
  assert.equal(detail.bytes, SIZE);
  assert.equal(detail.retries, 3);
  const waitedMs = performance.now() - startMs;
  // a timer may fire up to 1 ms early on the millisecond clock libuv keeps
  assert.ok(waitedMs >= 49 + 99 + 199 - 3, `retried without its backoff: ${waitedMs.toFixed(0)} ms`);
});

test("ten connections backing off at once: no listener warning (one deadline signal, many connections)", async () => {
  await runS3PutProbe(
    putEvent({
      endpoint: server.endpoint,
      bucket: "lnb-faults",
      key: "obj12",
      sizeMib: 12,
      partMib: 5,
      concurrency: 1,
    }),
    testDependencies,
  );
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    // every connection's first GET is answered 503, and a 1-2 s backoff makes all ten wait together
    proxy.setRules([
      { method: "GET", ranged: true, times: 10, fault: { kind: "error", status: 503, code: "SlowDown" } },
    ]);
    const { detail } = await runS3GetProbe(
      getEvent({
        endpoint: proxy.endpoint,
        bucket: "lnb-faults",
        key: "obj12",
        chunkMib: 1,
        concurrency: 10,
      }),
      { ...testDependencies, backoffBaseMs: 2_000 },
    );
    assert.equal(detail.bytes, 12 * MIB);
    assert.equal(detail.retries, 10);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings, []);
});

test("a HEAD answered 503 is retried", async () => {
  const { detail } = await download([
    { method: "HEAD", times: 1, fault: { kind: "error", status: 503, code: "SlowDown" } },
  ]);
  assert.equal(detail.bytes, SIZE);
  assert.equal(proxy.requests.filter((request) => request.method === "HEAD").length, 2);
});

test("retries exhausted: a clear failure, never a throughput over incomplete data", async () => {
  await assert.rejects(
    download(
      [{ method: "GET", ranged: true, skip: 1, times: 100, fault: { kind: "short-body", afterBytes: 1000 } }],
      {
        maxRetries: 2,
      },
    ),
    (error: unknown) => {
      assert.ok(isProbeError(error));
      assert.equal(error.kind, "retries-exhausted");
      assert.match(
        error.message,
        /GET s3:\/\/lnb-faults\/obj bytes 1048576-2097151: gave up after 2 retries \(3000 of 1048576 bytes received\)/,
      );
      return true;
    },
  );
  assert.equal(rangesOfGets().length, 4, "part 1, then part 2 and its 2 retries");
});

test("the probe's deadline bounds the whole download", async () => {
  const startMs = performance.now();
  await assert.rejects(
    download([{ method: "GET", ranged: true, times: 100, fault: { kind: "stall", afterBytes: 10 } }], {
      deadlineSeconds: 1,
      requestTimeoutMs: 60_000,
    }),
    (error: unknown) => {
      assert.ok(isProbeError(error));
      assert.equal(error.kind, "deadline");
      assert.match(error.message, /s3:\/\/lnb-faults\/obj: deadline of 1 s/);
      return true;
    },
  );
  // without the deadline the stalled GETs would wait out their 60 s request timeout
  const seconds = (performance.now() - startMs) / 1000;
  assert.ok(seconds >= 0.9 && seconds < 30, `took ${seconds} s`);
});

test("the deadline also bounds a HEAD that never answers", async () => {
  const startMs = performance.now();
  await assert.rejects(
    download([{ method: "HEAD", times: 100, fault: { kind: "stall", afterBytes: 0 } }], {
      deadlineSeconds: 1,
      requestTimeoutMs: 60_000,
    }),
    (error: unknown) => isProbeError(error) && error.kind === "deadline",
  );
  assert.ok((performance.now() - startMs) / 1000 < 30, "the HEAD waited out its 60 s request timeout");
});

test("an unreachable endpoint fails within the retries, naming the endpoint", async () => {
  await assert.rejects(
    runS3GetProbe(
      getEvent({ endpoint: "http://127.0.0.1:9", bucket: "lnb-faults", key: "obj", maxRetries: 1 }),
      testDependencies,
    ),
    /HEAD s3:\/\/lnb-faults\/obj \(127\.0\.0\.1:9\).*ECONNREFUSED|gave up after 1 retries/,
  );
});
