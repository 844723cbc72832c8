import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

interface S3rverInternals {
  middleware: Array<(ctx: KoaContext, next: () => Promise<void>) => Promise<void> | void>;
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
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
