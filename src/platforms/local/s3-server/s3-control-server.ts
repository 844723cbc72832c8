import { createReadStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { escapeXml, unescapeXml } from "../../../probes/s3/xml-text.js";
import { newBodyEtagHex } from "./etags.js";
import { FileMd5Pool } from "./file-md5.js";
import { MAX_PART_BYTES, MAX_PART_NUMBER, type ObjectFiles, type ObjectMeta } from "./object-files.js";
import {
  badDigest,
  entityTooLarge,
  errorDocument,
  invalidArgument,
  invalidDigest,
  malformedXml,
  methodNotAllowed,
  newRequestId,
  noSuchBucket,
  notImplemented,
  preconditionFailed,
  S3Error,
  XML_DECLARATION,
} from "./s3-xml.js";

/**
 * The lab S3 server's own part, behind nginx (which terminates TLS, receives every PUT body
 * into a file and serves object data): the control calls and everything small. nginx sends
 *
 * - PUT (PutObject, UploadPart) without the body, with `x-lnb-body-file: <path>`: the body
 *   nginx received; we give it an ETag (etags.ts), check a Content-MD5, and rename it into place;
 * - GET of an object with `x-lnb-object-lookup: 1` (nginx's auth_request): 200 with the ETag
 *   and the data file for nginx to serve, after checking If-Match / If-None-Match; any other
 *   answer makes nginx pass the GET itself here, and we answer it (error, 304, or the data);
 * - everything else as it came (CreateMultipartUpload, CompleteMultipartUpload with its XML,
 *   AbortMultipartUpload, HEAD, DELETE, ListObjects).
 *
 * Requests are not authenticated: the lab's credentials are fixed and the lab is local.
 */

export const BODY_FILE_HEADER = "x-lnb-body-file";
export const OBJECT_LOOKUP_HEADER = "x-lnb-object-lookup";
export const OBJECT_FILE_HEADER = "x-lnb-object-file";
export const CONTENT_TYPE_HEADER = "x-lnb-content-type";

interface Request {
  method: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  bodyFile: string | null;
  requestId: string;
}

export function createS3ControlServer(files: ObjectFiles, bucket: string): Server {
  const md5 = new FileMd5Pool();
  const server = createServer((incoming, response) => {
    const requestId = newRequestId();
    const url = new URL(incoming.url ?? "/", "http://lab");
    const [bucketPart = "", ...keyParts] = url.pathname.slice(1).split("/");
    const request: Request = {
      method: incoming.method ?? "GET",
      bucket: decodeURIComponent(bucketPart),
      key: decodeURIComponent(keyParts.join("/")),
      query: url.searchParams,
      headers: incoming.headers,
      bodyFile: headerValue(incoming.headers[BODY_FILE_HEADER]),
      requestId,
    };
    readBody(incoming)
      .then((body) => route(files, md5, bucket, request, body, response))
      .catch(async (error: unknown) => {
        if (request.bodyFile) await rm(request.bodyFile, { force: true });
        const s3Error =
          error instanceof S3Error
            ? error
            : new S3Error(500, "InternalError", `We encountered an internal error: ${String(error)}`);
        if (!(error instanceof S3Error)) console.error(`${request.method} ${incoming.url}:`, error);
        if (response.headersSent) {
          response.destroy();
          return;
        }
        const resource = `/${request.bucket}${request.key ? `/${request.key}` : ""}`;
        const document = errorDocument(s3Error, resource, requestId);
        response.writeHead(s3Error.status, {
          "content-type": "application/xml",
          "x-amz-request-id": requestId,
          "content-length": Buffer.byteLength(document),
        });
        response.end(request.method === "HEAD" ? undefined : document);
      });
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  return server;
}

async function route(
  files: ObjectFiles,
  md5: FileMd5Pool,
  labBucket: string,
  request: Request,
  body: Buffer,
  response: ServerResponse,
): Promise<void> {
  const { method, query, key } = request;
  if (request.bucket !== labBucket) throw noSuchBucket(request.bucket);
  if (!key) return bucketRequest(files, request, response);
  if (query.has("uploads")) {
    if (method !== "POST") throw notImplemented("ListMultipartUploads");
    const uploadId = await files.createUpload(request.bucket, key, contentType(request));
    return sendXml(
      response,
      request,
      200,
      `<InitiateMultipartUploadResult><Bucket>${escapeXml(request.bucket)}</Bucket><Key>${escapeXml(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
    );
  }
  const uploadId = query.get("uploadId");
  if (uploadId !== null) {
    if (method === "PUT") return uploadPart(files, md5, request, uploadId, response);
    if (method === "POST") return completeUpload(files, request, uploadId, body, response);
    if (method === "DELETE") {
      await files.abortUpload(request.bucket, key, uploadId);
      return sendEmpty(response, request, 204);
    }
    if (method === "GET") throw notImplemented("ListParts");
    throw methodNotAllowed(method);
  }
  if (method === "PUT") return putObject(files, md5, request, response);
  if (method === "DELETE") {
    await files.deleteObject(request.bucket, key);
    return sendEmpty(response, request, 204);
  }
  if (method === "HEAD" || method === "GET") return getObject(files, request, response);
  throw methodNotAllowed(method);
}

function rejectUnsupportedPut(request: Request): void {
  if (request.headers["x-amz-copy-source"]) throw notImplemented("CopyObject / UploadPartCopy");
  const encoding = headerValue(request.headers["content-encoding"]) ?? "";
  const payload = headerValue(request.headers["x-amz-content-sha256"]) ?? "";
  // the body would arrive framed in chunks: the file nginx wrote would not be the object
  if (encoding.includes("aws-chunked") || payload.startsWith("STREAMING-"))
    throw notImplemented("aws-chunked (streaming) uploads; send a Content-Length body");
}

/**
 * The body nginx received: its size, and a new ETag (etags.ts). It is read back only when
 * the client sent Content-MD5, to check it as S3 does.
 */
async function receivedBody(md5: FileMd5Pool, request: Request) {
  if (!request.bodyFile)
    throw new S3Error(400, "MissingContentLength", "You must provide the Content-Length HTTP header.");
  const contentMd5 = headerValue(request.headers["content-md5"]);
  if (contentMd5 !== null) {
    const expected = Buffer.from(contentMd5, "base64");
    if (expected.length !== 16) throw invalidDigest();
    if (expected.toString("hex") !== (await md5.digest(request.bodyFile)).md5Hex) throw badDigest();
  }
  const bytes = (await stat(request.bodyFile)).size;
  return { file: request.bodyFile, bytes, etagHex: newBodyEtagHex() };
}

async function uploadPart(
  files: ObjectFiles,
  md5: FileMd5Pool,
  request: Request,
  uploadId: string,
  response: ServerResponse,
) {
  rejectUnsupportedPut(request);
  const partText = request.query.get("partNumber") ?? "";
  const partNumber = Number(partText);
  if (!/^\d+$/.test(partText) || partNumber < 1 || partNumber > MAX_PART_NUMBER)
    throw invalidArgument(
      `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`,
      "partNumber",
      partText,
    );
  const upload = await files.requireUpload(request.bucket, request.key, uploadId);
  const body = await receivedBody(md5, request);
  if (body.bytes > MAX_PART_BYTES) throw entityTooLarge(body.bytes, MAX_PART_BYTES);
  await files.putPart(upload.dir, partNumber, body.file, body.bytes, body.etagHex);
  response.writeHead(200, {
    etag: `"${body.etagHex}"`,
    "x-amz-request-id": request.requestId,
    "content-length": 0,
  });
  response.end();
}

async function putObject(files: ObjectFiles, md5: FileMd5Pool, request: Request, response: ServerResponse) {
  rejectUnsupportedPut(request);
  const body = await receivedBody(md5, request);
  if (body.bytes > MAX_PART_BYTES) throw entityTooLarge(body.bytes, MAX_PART_BYTES);
  const meta = await files.putObject(
    request.bucket,
    request.key,
    body.file,
    body.bytes,
    `"${body.etagHex}"`,
    contentType(request),
  );
  response.writeHead(200, { etag: meta.etag, "x-amz-request-id": request.requestId, "content-length": 0 });
  response.end();
}

async function completeUpload(
  files: ObjectFiles,
  request: Request,
  uploadId: string,
  body: Buffer,
  response: ServerResponse,
) {
  const xml = body.toString("utf8");
  if (!/<CompleteMultipartUpload[\s>]/.test(xml)) throw malformedXml();
  const parts = [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((match) => {
    const inner = match[1] ?? "";
    const partNumber = Number(inner.match(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/)?.[1] ?? Number.NaN);
    const etag = unescapeXml(inner.match(/<ETag>([^<]*)<\/ETag>/)?.[1] ?? "").trim();
    if (!Number.isInteger(partNumber) || etag === "") throw malformedXml();
    return { partNumber, etag };
  });
  const meta = await files.completeUpload(request.bucket, request.key, uploadId, parts);
  const host = headerValue(request.headers.host) ?? "";
  sendXml(
    response,
    request,
    200,
    `<CompleteMultipartUploadResult><Location>https://${escapeXml(host)}/${escapeXml(request.bucket)}/${escapeXml(request.key)}</Location><Bucket>${escapeXml(request.bucket)}</Bucket><Key>${escapeXml(request.key)}</Key><ETag>${escapeXml(meta.etag)}</ETag></CompleteMultipartUploadResult>`,
  );
}

/** HEAD, GET (when nginx does not serve the data itself) and nginx's lookup before it does. */
async function getObject(files: ObjectFiles, request: Request, response: ServerResponse) {
  const lookup = request.headers[OBJECT_LOOKUP_HEADER] === "1";
  let found: ObjectMeta | null = null;
  try {
    found = await files.requireObject(request.bucket, request.key);
    checkConditions(request, found);
  } catch (error) {
    // nginx then sends the GET itself here, and it gets the S3 error (or 304) from below
    if (lookup) return sendEmpty(response, request, 403);
    if (error instanceof NotModified && found) {
      response.writeHead(304, { etag: found.etag, "x-amz-request-id": request.requestId });
      response.end();
      return;
    }
    throw error;
  }
  const meta = found;
  const headers = {
    etag: meta.etag,
    "last-modified": new Date(meta.lastModified).toUTCString(),
    "accept-ranges": "bytes",
    "x-amz-request-id": request.requestId,
  };
  if (lookup) {
    response.writeHead(200, {
      ...headers,
      [OBJECT_FILE_HEADER]: files.objectFile(request.bucket, request.key),
      [CONTENT_TYPE_HEADER]: meta.contentType,
      "content-length": 0,
    });
    response.end();
    return;
  }
  const range = parseRange(headerValue(request.headers.range), meta.bytes);
  if (range === "unsatisfiable")
    throw new S3Error(416, "InvalidRange", "The requested range is not satisfiable", {
      RangeRequested: headerValue(request.headers.range) ?? "",
      ActualObjectSize: String(meta.bytes),
    });
  const [start, end] = range ?? [0, meta.bytes - 1];
  response.writeHead(range ? 206 : 200, {
    ...headers,
    "content-type": meta.contentType,
    "content-length": meta.bytes === 0 ? 0 : end - start + 1,
    ...(range ? { "content-range": `bytes ${start}-${end}/${meta.bytes}` } : {}),
  });
  if (request.method === "HEAD" || meta.bytes === 0) {
    response.end();
    return;
  }
  createReadStream(join(files.root, files.objectFile(request.bucket, request.key)), { start, end }).pipe(
    response,
  );
}

class NotModified extends Error {}

function checkConditions(request: Request, meta: ObjectMeta): void {
  const ifMatch = headerValue(request.headers["if-match"]);
  if (ifMatch !== null && !etagListMatches(ifMatch, meta.etag)) throw preconditionFailed("If-Match");
  const ifNoneMatch = headerValue(request.headers["if-none-match"]);
  if (ifNoneMatch !== null && etagListMatches(ifNoneMatch, meta.etag)) throw new NotModified();
}

function etagListMatches(list: string, etag: string): boolean {
  const bare = etag.replace(/"/g, "");
  return list.split(",").some((item) => {
    const value = item.trim().replace(/^W\//, "").replace(/"/g, "");
    return value === "*" || value === bare;
  });
}

/** One `bytes=` range (what S3 supports), or null for the whole object. */
function parseRange(header: string | null, size: number): [number, number] | null | "unsatisfiable" {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match) return null;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return null;
  if (first === "") {
    const suffix = Math.min(Number(last), size);
    return suffix === 0 ? "unsatisfiable" : [size - suffix, size - 1];
  }
  const start = Number(first);
  if (start >= size) return "unsatisfiable";
  return [start, last === "" ? size - 1 : Math.min(Number(last), size - 1)];
}

async function bucketRequest(files: ObjectFiles, request: Request, response: ServerResponse) {
  const { method, query } = request;
  if (method === "HEAD") return sendEmpty(response, request, 200);
  if (method !== "GET") throw notImplemented(`${method} on the bucket`);
  if (query.has("location"))
    return sendXml(response, request, 200, "<LocationConstraint></LocationConstraint>");
  const subresource = [...query.keys()].find(
    (name) =>
      ![
        "list-type",
        "prefix",
        "max-keys",
        "continuation-token",
        "start-after",
        "marker",
        "x-id",
        "encoding-type",
        "delimiter",
      ].includes(name),
  );
  if (subresource) throw notImplemented(`?${subresource} on the bucket`);
  if (query.has("delimiter")) throw notImplemented("ListObjects with a delimiter");
  return listObjects(files, request, response);
}

/** ListObjectsV2 (list-type=2) or V1: prefix, max-keys, continuation (the start key, base64). */
async function listObjects(files: ObjectFiles, request: Request, response: ServerResponse) {
  const { query } = request;
  const v2 = query.get("list-type") === "2";
  const prefix = query.get("prefix") ?? "";
  const maxKeys = Math.min(1000, Number(query.get("max-keys") ?? 1000));
  const after = v2
    ? query.has("continuation-token")
      ? Buffer.from(query.get("continuation-token") ?? "", "base64").toString("utf8")
      : (query.get("start-after") ?? "")
    : (query.get("marker") ?? "");
  const matching = (await files.list(request.bucket)).filter(
    (meta) => meta.key.startsWith(prefix) && meta.key > after,
  );
  const page = matching.slice(0, maxKeys);
  const truncated = matching.length > page.length;
  const contents = page
    .map(
      (meta) =>
        `<Contents><Key>${escapeXml(meta.key)}</Key><LastModified>${meta.lastModified}</LastModified><ETag>${escapeXml(meta.etag)}</ETag><Size>${meta.bytes}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    )
    .join("");
  const last = page.at(-1)?.key ?? "";
  const paging = v2
    ? `<KeyCount>${page.length}</KeyCount>${truncated ? `<NextContinuationToken>${Buffer.from(last).toString("base64")}</NextContinuationToken>` : ""}`
    : `<Marker>${escapeXml(after)}</Marker>${truncated ? `<NextMarker>${escapeXml(last)}</NextMarker>` : ""}`;
  sendXml(
    response,
    request,
    200,
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${escapeXml(request.bucket)}</Name><Prefix>${escapeXml(prefix)}</Prefix><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${paging}${contents}</ListBucketResult>`,
  );
}

function contentType(request: Request): string {
  return headerValue(request.headers["content-type"]) ?? "binary/octet-stream";
}

function sendXml(response: ServerResponse, request: Request, status: number, document: string): void {
  const body = `${XML_DECLARATION}${document}`;
  response.writeHead(status, {
    "content-type": "application/xml",
    "content-length": Buffer.byteLength(body),
    "x-amz-request-id": request.requestId,
  });
  response.end(body);
}

function sendEmpty(response: ServerResponse, request: Request, status: number): void {
  response.writeHead(status, { "x-amz-request-id": request.requestId, "content-length": 0 });
  response.end();
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** The small bodies that reach us (CompleteMultipartUpload's part list); at most 16 MiB. */
function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    incoming.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > 16 * 1_048_576) {
        reject(new S3Error(400, "MaxMessageLengthExceeded", "Your request was too big."));
        incoming.destroy();
        return;
      }
      chunks.push(chunk);
    });
    incoming.on("end", () => resolve(Buffer.concat(chunks)));
    incoming.on("error", reject);
  });
}
