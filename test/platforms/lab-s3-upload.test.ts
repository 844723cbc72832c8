import assert from "node:assert/strict";
import { test } from "node:test";
import { usePrivateLab } from "../helpers/private-lab.js";
import { rootSkip } from "../helpers/root-gate.js";

/**
 * Uploads to the lab's S3 server (nginx receiving bodies into files + our control server):
 * the s3-put probe's multipart upload, the AWS SDK v3's Upload and low-level calls, S3's
 * ETags (one per part, "-N" for a multipart object; not MD5s: s3-server/etags.ts) and S3's
 * error XML.
 */
const skip = rootSkip("the lab S3 upload tests");
const arch = process.arch === "x64" ? "x86_64" : "arm64";
const MEMORY_MB = 10_240;

const lab = usePrivateLab(skip, { profile: "raised-3000", environments: 1, mode: "shaped" }, [
  { memoryMb: MEMORY_MB, arch },
]);

function curl(args: string[]) {
  const s3 = lab.platform.endpoints().s3;
  return lab.platform.execInEnvironment(MEMORY_MB, "curl", [
    "-sS",
    "--cacert",
    lab.platform.lab.s3.caFile,
    ...args.map((a) => a.replace("URL", `${s3?.endpoint}/${s3?.bucket}`)),
  ]);
}

test("the s3-put probe's multipart upload: ETag of the -N form, HEAD and GET agree", { skip }, async () => {
  const s3 = lab.platform.endpoints().s3;
  const outcome = await lab.platform.invoke(
    { memoryMb: MEMORY_MB, arch },
    {
      probe: "s3-put",
      endpoint: s3?.endpoint,
      bucket: s3?.bucket ?? "",
      key: "probe/upload",
      pathStyle: true,
      caPem: s3?.caPem,
      sizeMib: 40,
      partMib: 8,
      concurrency: 4,
    },
  );
  assert.ok(outcome.response?.ok, JSON.stringify(outcome.failure ?? outcome.response));
  const detail = outcome.response.detail as { etag: string; parts: number; verified: { sizeBytes: number } };
  assert.match(detail.etag, /^"[0-9a-f]{32}-5"$/);
  assert.equal(detail.verified.sizeBytes, 40 * 1_048_576);
  const get = await curl([
    "-D",
    "-",
    "-o",
    "/dev/null",
    "-H",
    `If-Match: ${detail.etag}`,
    "URL/probe/upload",
  ]);
  assert.match(get.stdout, /^HTTP\/1.1 200/);
  assert.match(get.stdout, new RegExp(`etag: ${detail.etag}`, "i"));
  assert.match(get.stdout, /content-length: 41943040/i);
});

test("the AWS SDK v3 (Upload, PutObject, the low-level calls) sees S3's semantics and errors", {
  skip,
}, async () => {
  const s3 = lab.platform.endpoints().s3;
  const run = await lab.platform.execInEnvironment(
    MEMORY_MB,
    process.execPath,
    [
      "test/platforms/fixtures/sdk-s3-semantics.mjs",
      s3?.endpoint ?? "",
      s3?.bucket ?? "",
      lab.platform.lab.s3.caFile,
    ],
    180,
  );
  assert.equal(run.exitCode, 0, run.stderr);
  const seen = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
  const etagForm = /^"[0-9a-f]{32}"$/;
  assert.match(seen.upload.etag, /^"[0-9a-f]{32}-5"$/);
  assert.deepEqual(seen.head, { etag: seen.upload.etag, bytes: 21 * 1_048_576 });
  assert.deepEqual(seen.get, { etag: seen.upload.etag, bytes: 21 * 1_048_576, same: true });
  assert.deepEqual(seen.range, { contentRange: `bytes 100-199/${21 * 1_048_576}`, same: true });
  assert.deepEqual(seen.ifMatchMismatch, { name: "PreconditionFailed", status: 412 });
  assert.match(seen.put.etag, etagForm);
  assert.equal(seen.put.headEtag, seen.put.etag);
  assert.match(seen.putWithMd5.etag, etagForm);
  assert.deepEqual(seen.putWithWrongMd5, { name: "BadDigest", status: 400 });
  assert.equal(seen.put.bytes, 1000);
  assert.deepEqual(seen.noSuchKey, { name: "NoSuchKey", status: 404 });
  assert.match(seen.partEtags[0], etagForm);
  assert.notEqual(seen.partEtags[0], seen.partEtags[1]);
  assert.deepEqual(seen.invalidPart, { name: "InvalidPart", status: 400 });
  assert.deepEqual(seen.invalidPartOrder, { name: "InvalidPartOrder", status: 400 });
  assert.deepEqual(seen.entityTooSmall, { name: "EntityTooSmall", status: 400 });
  assert.deepEqual(seen.noSuchUploadPart, { name: "NoSuchUpload", status: 404 });
  assert.deepEqual(seen.afterAbort, { name: "NoSuchUpload", status: 404 });
});

test("error bodies are S3's XML; Content-MD5 is checked; unsupported calls say so", { skip }, async () => {
  const missing = await curl(["-D", "-", "URL/no/such/key"]);
  assert.match(missing.stdout, /^HTTP\/1.1 404/);
  assert.match(
    missing.stdout,
    /<Error><Code>NoSuchKey<\/Code><Message>[^<]+<\/Message><Key>no\/such\/key<\/Key><Resource>\/lnblab\/no\/such\/key<\/Resource><RequestId>[0-9A-F]+<\/RequestId><\/Error>/,
  );
  const head = await curl(["-I", "URL/no/such/key"]);
  assert.match(head.stdout, /^HTTP\/1.1 404/);
  const noUpload = await curl(["-X", "DELETE", "-D", "-", `URL/k?uploadId=${"a".repeat(32)}`]);
  assert.match(noUpload.stdout, /^HTTP\/1.1 404/);
  assert.match(noUpload.stdout, /<Code>NoSuchUpload<\/Code>/);
  // Content-MD5 of "hello" is XUFAKrxLKna5cZ2REBfFkg==; another body must be refused
  const badDigest = await curl([
    "-X",
    "PUT",
    "-H",
    "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==",
    "--data-binary",
    "not hello",
    "URL/digest",
  ]);
  assert.match(badDigest.stdout, /<Code>BadDigest<\/Code>/);
  const goodDigest = await curl([
    "-X",
    "PUT",
    "-D",
    "-",
    "-H",
    "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==",
    "--data-binary",
    "hello",
    "URL/digest",
  ]);
  // stored; the ETag is the lab's own (s3-server/etags.ts), not the MD5
  assert.match(goodDigest.stdout, /^HTTP\/1.1 200/);
  assert.match(goodDigest.stdout, /^etag: "[0-9a-f]{32}"/im);
  const copy = await curl(["-X", "PUT", "-H", "x-amz-copy-source: /lnblab/digest", "URL/copy"]);
  assert.match(copy.stdout, /<Code>NotImplemented<\/Code>/);
  const badPart = await curl([
    "-X",
    "PUT",
    "--data-binary",
    "x",
    `URL/k?partNumber=10001&uploadId=${"a".repeat(32)}`,
  ]);
  assert.match(badPart.stdout, /<Code>InvalidArgument<\/Code>/);
});
