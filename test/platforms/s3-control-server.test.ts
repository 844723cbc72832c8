import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ObjectFiles } from "../../src/platforms/local/s3-server/object-files.js";
import {
  BODY_FILE_HEADER,
  createS3ControlServer,
  OBJECT_FILE_HEADER,
  OBJECT_LOOKUP_HEADER,
} from "../../src/platforms/local/s3-server/s3-control-server.js";

/**
 * The lab S3 server's control process on its own (no nginx, no root): PUT bodies arrive as
 * files, as nginx hands them over; multipart rules, ETags and S3's error XML.
 */
let root: string;
let base: string;
let files: ObjectFiles;
const server = { close: () => {} } as { close: () => void };

before(async () => {
  root = await mkdtemp(join(tmpdir(), "lnb-s3-control-"));
  files = new ObjectFiles(root);
  await files.init();
  const http = createS3ControlServer(files, "lnblab");
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/lnblab`;
  server.close = () => http.close();
});

after(async () => {
  server.close();
  await rm(root, { recursive: true, force: true });
});

let bodies = 0;
/** A PUT as nginx sends it: the body already in a file under incoming/. */
async function put(path: string, body: Buffer, headers: Record<string, string> = {}) {
  bodies += 1;
  const file = join(files.incomingDir, `body-${bodies}`);
  await writeFile(file, body);
  return fetch(`${base}/${path}`, { method: "PUT", headers: { [BODY_FILE_HEADER]: file, ...headers } });
}

const unquoted = (etag: string | null) => Buffer.from((etag ?? "").replace(/"/g, ""), "hex");
const code = async (response: Response) => (await response.text()).match(/<Code>([^<]+)<\/Code>/)?.[1];

test("multipart: an ETag per part, the object's is md5(part ETags)-N, HEAD and the lookup agree", async () => {
  const created = await fetch(`${base}/mp?uploads`, { method: "POST" });
  const uploadId = (await created.text()).match(/<UploadId>([^<]+)/)?.[1] ?? "";
  const one = Buffer.alloc(5 * 1_048_576, 1);
  const two = Buffer.from("tail");
  const e1 = (await put(`mp?partNumber=1&uploadId=${uploadId}`, one)).headers.get("etag");
  const e2 = (await put(`mp?partNumber=2&uploadId=${uploadId}`, two)).headers.get("etag");
  assert.match(e1 ?? "", /^"[0-9a-f]{32}"$/);
  assert.match(e2 ?? "", /^"[0-9a-f]{32}"$/);
  assert.notEqual(e1, e2);
  const xml = (parts: Array<[number, string | null]>) =>
    `<CompleteMultipartUpload>${parts.map(([n, e]) => `<Part><PartNumber>${n}</PartNumber><ETag>${e}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
  const complete = (parts: Array<[number, string | null]>) =>
    fetch(`${base}/mp?uploadId=${uploadId}`, { method: "POST", body: xml(parts) });
  assert.equal(
    await code(
      await complete([
        [2, e2],
        [1, e1],
      ]),
    ),
    "InvalidPartOrder",
  );
  assert.equal(
    await code(
      await complete([
        [1, '"00"'],
        [2, e2],
      ]),
    ),
    "InvalidPart",
  );
  assert.equal(
    await code(
      await complete([
        [1, e1],
        [3, e2],
      ]),
    ),
    "InvalidPart",
  );
  const done = await complete([
    [1, e1],
    [2, e2],
  ]);
  const expected = `"${createHash("md5")
    .update(Buffer.concat([unquoted(e1), unquoted(e2)]))
    .digest("hex")}-2"`;
  assert.match(await done.text(), new RegExp(`<ETag>${expected.replace(/"/g, "&quot;")}</ETag>`));
  const head = await fetch(`${base}/mp`, { method: "HEAD" });
  assert.equal(head.headers.get("etag"), expected);
  assert.equal(head.headers.get("content-length"), String(one.length + two.length));
  const lookup = await fetch(`${base}/mp`, {
    headers: { [OBJECT_LOOKUP_HEADER]: "1", "if-match": expected },
  });
  assert.equal(lookup.status, 200);
  assert.equal(lookup.headers.get(OBJECT_FILE_HEADER), files.objectFile("lnblab", "mp"));
  const refused = await fetch(`${base}/mp`, { headers: { [OBJECT_LOOKUP_HEADER]: "1", "if-match": '"x"' } });
  assert.equal(refused.status, 403, "a failed condition goes back to nginx as a refusal");
  const data = await fetch(`${base}/mp`, { headers: { range: "bytes=5242880-" } });
  assert.equal(data.status, 206);
  assert.equal(await data.text(), "tail");
  assert.equal(await code(await complete([[1, e1]])), "NoSuchUpload");
});

test("a part smaller than 5 MiB before the last is EntityTooSmall; abort removes the upload", async () => {
  const uploadId =
    (await (await fetch(`${base}/small?uploads`, { method: "POST" })).text()).match(
      /<UploadId>([^<]+)/,
    )?.[1] ?? "";
  const e1 = (await put(`small?partNumber=1&uploadId=${uploadId}`, Buffer.from("a"))).headers.get("etag");
  const e2 = (await put(`small?partNumber=2&uploadId=${uploadId}`, Buffer.from("b"))).headers.get("etag");
  const response = await fetch(`${base}/small?uploadId=${uploadId}`, {
    method: "POST",
    body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${e1}</ETag></Part><Part><PartNumber>2</PartNumber><ETag>${e2}</ETag></Part></CompleteMultipartUpload>`,
  });
  assert.equal(response.status, 400);
  assert.equal(await code(response), "EntityTooSmall");
  assert.equal((await fetch(`${base}/small?uploadId=${uploadId}`, { method: "DELETE" })).status, 204);
  const again = await fetch(`${base}/small?uploadId=${uploadId}`, { method: "DELETE" });
  assert.equal(again.status, 404);
  assert.equal(await code(again), "NoSuchUpload");
});

test("a replaced object gets a new ETag; a part uploaded again gets a new one, and only it completes", async () => {
  const first = (await put("again", Buffer.from("same"))).headers.get("etag");
  const second = (await put("again", Buffer.from("same"))).headers.get("etag");
  assert.notEqual(first, second);
  assert.equal((await fetch(`${base}/again`, { method: "HEAD" })).headers.get("etag"), second);
  const stale = await fetch(`${base}/again`, {
    headers: { [OBJECT_LOOKUP_HEADER]: "1", "if-match": first ?? "" },
  });
  assert.equal(stale.status, 403, "If-Match with the replaced object's ETag fails");

  const uploadId =
    (await (await fetch(`${base}/retry?uploads`, { method: "POST" })).text()).match(
      /<UploadId>([^<]+)/,
    )?.[1] ?? "";
  const old = (await put(`retry?partNumber=1&uploadId=${uploadId}`, Buffer.from("x"))).headers.get("etag");
  const retried = (await put(`retry?partNumber=1&uploadId=${uploadId}`, Buffer.from("x"))).headers.get(
    "etag",
  );
  const complete = (etag: string | null) =>
    fetch(`${base}/retry?uploadId=${uploadId}`, {
      method: "POST",
      body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${etag}</ETag></Part></CompleteMultipartUpload>`,
    });
  assert.equal(await code(await complete(old)), "InvalidPart");
  assert.equal((await complete(retried)).status, 200);
});

test("Content-MD5: checked when sent (a right one is stored, a wrong one is BadDigest)", async () => {
  const body = Buffer.from("hello");
  const right = createHash("md5").update(body).digest("base64");
  const stored = await put("md5-right", body, { "content-md5": right });
  assert.equal(stored.status, 200);
  assert.equal((await fetch(`${base}/md5-right`, { method: "HEAD" })).headers.get("content-length"), "5");
  const short = await put("md5-short", body, { "content-md5": "AAAA" });
  assert.equal(await code(short), "InvalidDigest");
});

test("errors: NoSuchKey, NoSuchBucket, BadDigest, InvalidArgument, NotImplemented", async () => {
  const missing = await fetch(`${base}/none`);
  assert.equal(missing.status, 404);
  assert.equal(await code(missing), "NoSuchKey");
  assert.equal(await code(await fetch(`${base.replace("/lnblab", "/other")}/k`)), "NoSuchBucket");
  const digest = await put("d", Buffer.from("not hello"), { "content-md5": "XUFAKrxLKna5cZ2REBfFkg==" });
  assert.equal(await code(digest), "BadDigest");
  const badPart = await put(`k?partNumber=0&uploadId=${"a".repeat(32)}`, Buffer.from("x"));
  assert.equal(await code(badPart), "InvalidArgument");
  const copy = await put("c", Buffer.from(""), { "x-amz-copy-source": "/lnblab/d" });
  assert.equal(copy.status, 501);
  assert.equal(await code(copy), "NotImplemented");
});
