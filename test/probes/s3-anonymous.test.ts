import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { isProbeError } from "../../src/probes/probe-error.js";
import { runS3GetProbe } from "../../src/probes/s3/run-s3-get.js";
import { runS3PutProbe } from "../../src/probes/s3/run-s3-put.js";
import { cliArgv } from "../helpers/cli-process.js";
import { getEvent, putEvent, testDependencies } from "../helpers/s3-events.js";
import { type KoaContext, type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";

/**
 * Issue 11: `--no-sign-request` (anonymous access, as the AWS CLI's flag). s3rver serves
 * anonymous requests; in front of it, S3's own rule for a bucket that is not public: an
 * unsigned request for anything under `private/` gets 403 AccessDenied (S3's XML). Every
 * request's auth headers are kept, to prove an anonymous probe sends none.
 */
const bucket = "lnb-anon";
const seen: Array<{ method: string; path: string; signed: string[] }> = [];
const authHeaders = ["authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256"];
let server: S3rverInstance | undefined;
let home: string | undefined;

const accessDenied = (ctx: KoaContext) => {
  ctx.status = 403;
  ctx.type = "application/xml";
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>4442587FB7D0A2F9</RequestId><HostId>anon</HostId></Error>`;
};

before(async () => {
  home = mkdtempSync(join(tmpdir(), "lnb-anon-home-"));
  server = await startS3rver({
    buckets: [bucket],
    middleware: async (ctx, next) => {
      const signed = authHeaders.filter((name) => ctx.headers[name] !== undefined);
      seen.push({ method: ctx.method, path: ctx.path, signed });
      if (signed.length === 0 && ctx.path.startsWith(`/${bucket}/private/`)) return accessDenied(ctx);
      return next();
    },
  });
  // the owner uploads both objects, signed
  for (const key of ["public/object.bin", "private/object.bin"]) {
    const put = await runS3PutProbe(
      putEvent({ endpoint: server.endpoint, bucket, key, sizeMib: 6, partMib: 5, concurrency: 2 }),
      testDependencies,
    );
    assert.equal(put.detail.bytes, 6 * 1_048_576);
  }
  assert.ok(
    seen.every((request) => request.signed.includes("authorization")),
    "the uploads were signed",
  );
  seen.length = 0;
});
after(async () => {
  await server?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The CLI with no credentials anywhere: no AWS_* variables, an empty HOME, no instance metadata. */
async function probeWithoutCredentials(args: string[]) {
  return promisify(execFile)(process.execPath, cliArgv(args), {
    env: { PATH: process.env.PATH ?? "", HOME: home as string, AWS_EC2_METADATA_DISABLED: "true" },
    timeout: 60_000,
  }).then(
    (result) => ({ code: 0, ...result }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const getArgs = (key: string, ...extra: string[]) => [
  "probe",
  "s3-get",
  "--endpoint",
  (server as S3rverInstance).endpoint,
  "--bucket",
  bucket,
  "--key",
  key,
  "--concurrency",
  "2",
  "--chunk-mib",
  "2",
  "--max-retries",
  "1",
  "--json",
  ...extra,
];

test("probe s3-get --no-sign-request reads a public object with no credentials and sends no signature", async () => {
  const result = await probeWithoutCredentials(getArgs("public/object.bin", "--no-sign-request"));
  assert.equal(result.code, 0, result.stderr);
  assert.equal((JSON.parse(result.stdout) as { bytes: number }).bytes, 6 * 1_048_576);
  assert.ok(seen.length >= 4, `HEAD and 3 ranged GETs at least, saw ${seen.length}`);
  for (const request of seen)
    assert.deepEqual(request.signed, [], `${request.method} ${request.path} carried ${request.signed}`);
});

test("without --no-sign-request and no credentials: the signing error, before any request", async () => {
  seen.length = 0;
  const result = await probeWithoutCredentials(getArgs("public/object.bin"));
  assert.notEqual(result.code, 0);
  assert.match(result.stderr + result.stdout, /no AWS credentials to sign S3 requests.*AWS_PROFILE/s);
  assert.equal(seen.length, 0);
});

test("an anonymous read S3 refuses (not public): AccessDenied that says the request was anonymous", async () => {
  seen.length = 0;
  await assert.rejects(
    runS3GetProbe(
      getEvent({
        endpoint: (server as S3rverInstance).endpoint,
        bucket,
        key: "private/object.bin",
        signRequest: false,
      }),
      { backoffBaseMs: 1 },
    ),
    (error: unknown) =>
      isProbeError(error) &&
      error.kind === "access-denied" &&
      /HTTP 403 AccessDenied/.test(error.message) &&
      /anonymous \(--no-sign-request\)/.test(error.message),
  );
  assert.ok(seen.length >= 1 && seen.every((request) => request.signed.length === 0));
});

test("s3-put with signRequest false: every multipart request is unsigned (a bucket that allows public writes)", async () => {
  seen.length = 0;
  const put = await runS3PutProbe(
    putEvent({
      endpoint: (server as S3rverInstance).endpoint,
      bucket,
      key: "public/upload.bin",
      sizeMib: 6,
      partMib: 5,
      concurrency: 2,
      signRequest: false,
    }),
    {
      credentials: async () => {
        throw new Error("an anonymous probe must not look for credentials");
      },
      backoffBaseMs: 1,
    },
  );
  assert.equal(put.detail.verified.sizeBytes, 6 * 1_048_576);
  assert.ok(seen.length >= 5, `create, 2 parts, complete, HEAD: saw ${seen.length}`);
  for (const request of seen) assert.deepEqual(request.signed, [], `${request.method} ${request.path}`);
});
