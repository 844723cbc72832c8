import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveObjectAddress } from "../../src/probes/s3/s3-address.js";

/** S3 addressing as the AWS SDKs' endpoint rules decide it (issue 11: IP endpoints, odd bucket names). */
const address = (endpoint: string | undefined, bucket: string, pathStyle = false) =>
  resolveObjectAddress({ endpoint, region: "us-west-2", bucket, key: "test-objects/a b", pathStyle });

test("an endpoint given as an IP address is addressed path-style without --path-style", () => {
  const ip = address("https://198.18.0.2", "bench");
  assert.equal(ip.hostHeader, "198.18.0.2");
  assert.equal(ip.path, "/bench/test-objects/a%20b");
  const ipv6 = address("https://[fd00::2]:9000", "bench");
  assert.equal(ipv6.path, "/bench/test-objects/a%20b");
  assert.equal(ipv6.hostHeader, "[fd00::2]:9000");
});

test("AWS S3 with a DNS-compatible bucket: virtual-hosted", () => {
  const aws = address(undefined, "lambda-netbench-bucket-1a2b3c");
  assert.equal(aws.hostHeader, "lambda-netbench-bucket-1a2b3c.s3.us-west-2.amazonaws.com");
  assert.equal(aws.path, "/test-objects/a%20b");
});

test("bucket names that cannot be a DNS label: path-style", () => {
  for (const bucket of ["My_Bucket", "a.b", "ab", "bucket..x", "192.168.1.1"])
    assert.equal(address(undefined, bucket).hostHeader, "s3.us-west-2.amazonaws.com", bucket);
  // dotted names are fine over plain HTTP (no wildcard certificate to match)
  assert.equal(address("http://minio.example:9000", "a.b").hostHeader, "a.b.minio.example:9000");
});
