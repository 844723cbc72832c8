import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { runS3PutProbe } from "../../src/probes/s3/run-s3-put.js";
import { cliArgv } from "../helpers/cli-process.js";
import { putEvent, testDependencies } from "../helpers/s3-events.js";
import { type S3TestServers, startS3TestServers } from "../helpers/s3-servers.js";
import { S3RVER_CREDENTIALS } from "../helpers/s3rver-instance.js";

/**
 * Issue 11: `probe s3-get --endpoint https://<IP>` without --path-style used to send the Host
 * `bucket.<IP>` and fail with ENOTFOUND. Path-style is now chosen automatically for IP hosts.
 */
let servers: S3TestServers | undefined;

before(async () => {
  servers = await startS3TestServers("lnb-ip");
  const put = await runS3PutProbe(
    putEvent({
      endpoint: servers.server.endpoint,
      caPem: servers.tls.caPem,
      bucket: "lnb-ip",
      key: "object.bin",
      sizeMib: 6,
      partMib: 5,
      concurrency: 2,
    }),
    testDependencies,
  );
  assert.equal(put.detail.bytes, 6 * 1_048_576);
});
after(async () => {
  await servers?.close();
});

test("probe s3-get against an IP endpoint succeeds without --path-style", async () => {
  const endpoint = (servers as S3TestServers).server.endpoint;
  assert.match(new URL(endpoint).hostname, /^\d+\.\d+\.\d+\.\d+$/, "the test server is addressed by IP");
  const result = await promisify(execFile)(
    process.execPath,
    cliArgv([
      "probe",
      "s3-get",
      "--endpoint",
      endpoint,
      "--bucket",
      "lnb-ip",
      "--key",
      "object.bin",
      "--ca-file",
      (servers as S3TestServers).tls.caPath,
      "--concurrency",
      "2",
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
  assert.equal(json.bytes, 6 * 1_048_576);
});
