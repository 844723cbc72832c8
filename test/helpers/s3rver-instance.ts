import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import S3rver from "s3rver";

/** s3rver's built-in account: the only credentials it accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export interface S3rverInstance {
  endpoint: string;
  port: number;
  directory: string;
  /** Multipart uploads still open in a bucket (parts S3 would keep billing for). */
  openUploads(bucket: string): string[];
  close(): Promise<void>;
}

/** What s3rver's filesystem store hands its putObject (s3rver/lib/models/object.js). */
interface StoredObject {
  bucket: string;
  key: string;
  content: Readable | Buffer;
  metadata: Record<string, string>;
}
interface Stored {
  size: number;
  md5: string;
}
interface S3rverStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putObject(object: StoredObject): Promise<Stored>;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<Stored>;
}
interface S3rverInternals {
  middleware: Array<(ctx: KoaContext, next: () => Promise<void>) => Promise<void> | void>;
  store: S3rverStore;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
export interface KoaContext {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, string | undefined>;
  status: number;
  body: unknown;
  type: string;
}

/**
 * A real S3-compatible server (s3rver, filesystem store) on 127.0.0.1 (or `address`), port chosen by the OS,
 * HTTP or HTTPS. s3rver 3.7 has no AbortMultipartUpload (it answers 405), so one small
 * middleware adds it the way S3 does it: the upload's stored parts are deleted and the
 * upload id is gone (NoSuchUpload afterwards).
 */
export async function startS3rver(options: {
  buckets: string[];
  /** Default 127.0.0.1. */
  address?: string;
  tls?: { key: string; cert: string };
  /** Runs before s3rver's own handling (tests: see the headers, answer as S3 would). */
  middleware?: (ctx: KoaContext, next: () => Promise<void>) => Promise<void> | void;
}): Promise<S3rverInstance> {
  const directory = mkdtempSync(join(tmpdir(), "lnb-s3rver-"));
  const server = new S3rver({
    address: options.address ?? "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: options.buckets.map((name) => ({ name })),
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
  }) as unknown as S3rverInternals;
  storeWhenWritten(server.store);
  const uploadsDir = (bucket: string) => server.store.getResourcePath(bucket, undefined, "uploads");
  server.middleware.unshift(async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== "DELETE" || uploadId === undefined) return next();
    const bucket = decodeURIComponent(ctx.path.split("/")[1] ?? "");
    const dir = join(uploadsDir(bucket), uploadId);
    if (!existsSync(dir)) {
      ctx.status = 404;
      ctx.type = "application/xml";
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${uploadId}</UploadId></Error>`;
      return;
    }
    rmSync(dir, { recursive: true, force: true });
    ctx.status = 204;
  });
  if (options.middleware) server.middleware.unshift(options.middleware);
  const { port } = await server.run();
  return {
    endpoint: `${options.tls ? "https" : "http"}://${options.address ?? "127.0.0.1"}:${port}`,
    port,
    directory,
    openUploads: (bucket) => (existsSync(uploadsDir(bucket)) ? readdirSync(uploadsDir(bucket)) : []),
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

let partialFiles = 0;

/**
 * Writes `content` to `path` as S3 stores an object: whole or not at all. The bytes go to a
 * file beside it, and a rename puts them in place once they are all on disk, so a reader sees
 * the old object or the new one, never part of it. Resolves with the size and MD5 only then.
 */
async function writeWhole(path: string, content: Readable | Buffer): Promise<Stored> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial-${process.pid}-${partialFiles++}`;
  const md5 = createHash("md5");
  let size = 0;
  const tally = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
  try {
    await pipeline(source, tally, createWriteStream(partial));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { size, md5: md5.digest("hex") };
}

/**
 * s3rver 3.7 answers a PUT (object or part) once the body has passed its MD5 transform, before
 * the file stream has written it: a GET right after could read a short or empty file (the
 * scheduled studies' recorder read "Unexpected end of JSON input" from a manifest just put, on a
 * loaded host). S3 is read-after-write consistent, so the store's writes here complete, whole,
 * before the answer. Keys, paths and metadata stay s3rver's own.
 */
function storeWhenWritten(store: S3rverStore): void {
  store.putObject = async (object) => {
    const stored = await writeWhole(
      store.getResourcePath(object.bucket, object.key, "object"),
      object.content,
    );
    await store.putMetadata(object.bucket, object.key, object.metadata, stored.md5);
    return stored;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = join(store.getResourcePath(bucket, undefined, "uploads"), uploadId, String(partNumber));
    const stored = await writeWhole(partPath, content);
    await writeFile(`${partPath}.md5`, stored.md5);
    return stored;
  };
}
