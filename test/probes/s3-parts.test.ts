import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentEvent } from "../../src/agent/event.js";
import { backoffDelayMs } from "../../src/probes/retry-backoff.js";
import { ConnectionRamp } from "../../src/probes/s3/connection-ramp.js";
import { summarizeLatencies } from "../../src/probes/s3/latency-summary.js";
import { resolveObjectAddress } from "../../src/probes/s3/s3-address.js";
import { isRetryableStatus, parseS3ErrorBody, s3ResponseError } from "../../src/probes/s3/s3-errors.js";
import { escapeXml, unescapeXml, xmlText } from "../../src/probes/s3/xml-text.js";
import { s3ErrorDocument } from "../helpers/fault-proxy.js";

test("the auto ramp adds connections while each raises throughput, then settles on the last that helped", () => {
  const ramp = new ConnectionRamp(64);
  assert.equal(ramp.observe(1, 0), 1, "nothing measured yet: wait");
  assert.equal(ramp.observe(1, 500e6), 2);
  assert.equal(ramp.observe(2, 1_000e6), 3);
  assert.equal(ramp.observe(3, 1_400e6), 4);
  assert.equal(ramp.observe(4, 1_420e6), 3, "+1.4 % is not worth a connection");
  assert.equal(ramp.chosenConnections, 3);
  assert.equal(ramp.isGrowing, false);
  assert.equal(ramp.observe(3, 5_000e6), 3, "settled");
  assert.equal(ramp.steps.length, 5);
});

test("the auto ramp stops at its maximum", () => {
  const ramp = new ConnectionRamp(2);
  assert.equal(ramp.observe(1, 100), 2);
  assert.equal(ramp.observe(2, 200), 2);
  assert.equal(ramp.isGrowing, false);
  assert.equal(ramp.chosenConnections, 2);
});

test("latency percentiles are nearest-rank", () => {
  assert.deepEqual(summarizeLatencies([]), {
    count: 0,
    p50Seconds: null,
    p90Seconds: null,
    maxSeconds: null,
  });
  const summary = summarizeLatencies([0.5, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0]);
  assert.equal(summary.p50Seconds, 0.5);
  assert.equal(summary.p90Seconds, 0.9);
  assert.equal(summary.maxSeconds, 1.0);
});

test("backoff doubles from its base, with full jitter, and is capped", () => {
  const top = () => 0.999_999;
  assert.equal(backoffDelayMs(1, 100, 5_000, top), 99);
  assert.equal(backoffDelayMs(3, 100, 5_000, top), 399);
  assert.equal(
    backoffDelayMs(3, 100, 5_000, () => 0.5),
    200,
  );
  assert.equal(backoffDelayMs(30, 100, 5_000, top), 4_999, "capped");
  assert.equal(
    backoffDelayMs(2, 100, 5_000, () => 0),
    0,
  );
  for (let i = 0; i < 50; i += 1) {
    const third = backoffDelayMs(3, 100);
    assert.ok(third >= 0 && third < 400);
  }
});

test("xml text: what one side of the S3 wire escapes the other reads back, and &amp; is undone last", () => {
  const etag = `"a&b<c>'d'"`;
  assert.equal(escapeXml(etag), "&quot;a&amp;b&lt;c&gt;&apos;d&apos;&quot;");
  assert.equal(unescapeXml(escapeXml(etag)), etag);
  assert.equal(xmlText(`<R><ETag>${escapeXml(etag)}</ETag></R>`, "ETag"), etag);
  assert.equal(unescapeXml("&amp;lt;"), "&lt;", "an escaped entity stays an entity");
  assert.equal(xmlText("<R></R>", "ETag"), null);
});

test("addresses: AWS virtual-hosted by default, path-style for a custom endpoint when asked, keys encoded", () => {
  const aws = resolveObjectAddress({
    region: "us-west-2",
    bucket: "my-bucket",
    key: "a b/c+d",
    pathStyle: false,
  });
  assert.equal(aws.hostname, "my-bucket.s3.us-west-2.amazonaws.com");
  assert.equal(aws.port, 443);
  assert.equal(aws.hostHeader, "my-bucket.s3.us-west-2.amazonaws.com");
  assert.equal(aws.path, "/a%20b/c%2Bd");
  const lab = resolveObjectAddress({
    endpoint: "http://198.18.0.1:9000",
    region: "us-east-1",
    bucket: "b-1",
    key: "k(1)",
    pathStyle: true,
  });
  assert.equal(lab.hostHeader, "198.18.0.1:9000");
  assert.equal(lab.path, "/b-1/k%281%29");
  const dotted = resolveObjectAddress({
    region: "eu-west-1",
    bucket: "my.bucket",
    key: "k",
    pathStyle: false,
  });
  assert.equal(
    dotted.hostname,
    "s3.eu-west-1.amazonaws.com",
    "dotted buckets break the TLS wildcard: path-style",
  );
  assert.throws(
    () =>
      resolveObjectAddress({ endpoint: "ftp://x", region: "r", bucket: "bbb", key: "k", pathStyle: true }),
    /endpoint/,
  );
});

test("S3 error documents become clear errors naming bucket, key and code", () => {
  assert.deepEqual(parseS3ErrorBody(s3ErrorDocument("SlowDown", "/b/k")), {
    code: "SlowDown",
    message: "Please reduce your request rate.",
  });
  const denied = s3ResponseError(
    "GET",
    { bucket: "b", key: "k" },
    403,
    s3ErrorDocument("AccessDenied", "/b/k"),
  );
  assert.equal(denied.kind, "access-denied");
  assert.match(denied.message, /^GET s3:\/\/b\/k failed: HTTP 403 AccessDenied: Access Denied \(.*IAM/);
  const headOnly = s3ResponseError("HEAD", { bucket: "b", key: "k" }, 404, "");
  assert.equal(headOnly.kind, "not-found");
  assert.match(headOnly.message, /HTTP 404 NotFound/);
  assert.ok(isRetryableStatus(503, "SlowDown"));
  assert.ok(isRetryableStatus(400, "RequestTimeout"));
  assert.ok(!isRetryableStatus(403, "AccessDenied"));
  assert.ok(!isRetryableStatus(412, "PreconditionFailed"));
});

test("s3 events: concurrency auto is allowed, bad values name the field", () => {
  const event = parseAgentEvent({ probe: "s3-get", bucket: "bbb", key: "k", concurrency: "auto" });
  assert.equal(event.probe === "s3-get" && event.concurrency, "auto");
  assert.throws(
    () => parseAgentEvent({ probe: "s3-get", bucket: "bbb", key: "k", concurrency: 0 }),
    /concurrency/,
  );
  assert.throws(
    () => parseAgentEvent({ probe: "s3-put", bucket: "bbb", key: "k", sizeMib: 10, partMib: 4 }),
    /partMib/,
  );
  assert.throws(
    () => parseAgentEvent({ probe: "s3-get", bucket: "bbb", key: "k", requestTimeoutMs: 5 }),
    /requestTimeoutMs/,
  );
});
