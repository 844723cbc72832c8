import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ProbeError } from "../probe-error.js";
import { backoffDelayMs, sleepUnlessAborted } from "../retry-backoff.js";
import { isRetryableStatus, parseS3ErrorBody, s3ResponseError } from "./s3-errors.js";
import { EMPTY_BODY_SHA256, encodeQuery, type S3RequestSigner, UNSIGNED_PAYLOAD } from "./s3-signer.js";
import { type RequestTarget, sendSmallRequest, startRequest } from "./s3-transport.js";
import type { UploadProgress } from "./upload-progress.js";
import { escapeXml, xmlText } from "./xml-text.js";

/** The S3 multipart-upload calls, signed, over the probe's keep-alive pool. */
export interface UploadedPart {
  partNumber: number;
  etag: string;
}

export class MultipartUploadClient {
  constructor(
    private readonly target: RequestTarget,
    private readonly signer: S3RequestSigner,
  ) {}

  private get address() {
    return this.target.address;
  }

  async create(): Promise<string> {
    const response = await this.small("POST", { uploads: "" });
    if (response.status !== 200)
      throw s3ResponseError("CreateMultipartUpload", this.address, response.status, response.body);
    const uploadId = xmlText(response.body.toString("utf8"), "UploadId");
    if (!uploadId)
      throw new ProbeError(
        "protocol",
        `CreateMultipartUpload s3://${this.address.bucket}/${this.address.key}: no UploadId in the response`,
      );
    return uploadId;
  }

  /**
   * Sends one part; resolves with its ETag. Over HTTPS the body is not hashed
   * (UNSIGNED-PAYLOAD: TLS protects it); over plain HTTP it is, so nothing on the path can alter it unseen.
   * Rejects with { retryable } so the caller can decide to send the part again.
   */
  async uploadPart(
    uploadId: string,
    partNumber: number,
    body: Buffer,
    progress: UploadProgress,
  ): Promise<string> {
    const query = { partNumber: String(partNumber), uploadId };
    const payloadSha256 =
      this.address.protocol === "https:" ? UNSIGNED_PAYLOAD : createHash("sha256").update(body).digest("hex");
    const headers = await this.signer.sign(this.address, {
      method: "PUT",
      query,
      headers: { "content-length": String(body.length) },
      payloadSha256,
    });
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const settle = (error: Error | null, etag?: string) => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve(etag ?? "");
      };
      const request = startRequest(this.target, "PUT", `${this.address.path}${encodeQuery(query)}`, headers);
      progress.watch(request);
      request.on("error", (error) =>
        settle(
          new PartFailure(true, new Error(`UploadPart ${partNumber}: ${error.message}`, { cause: error })),
        ),
      );
      request.on("response", (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", () => {});
        response.on("close", () =>
          settle(
            new PartFailure(
              true,
              new Error(`UploadPart ${partNumber}: connection closed before the response ended`),
            ),
          ),
        );
        // 'end', not 'close': S3 may answer (an error) before the whole part was sent
        response.on("end", () => {
          // the rest of an interrupted body cannot be skipped on this connection: drop it after settling
          setImmediate(() => {
            if (!request.writableFinished) request.destroy();
          });
          const status = response.statusCode ?? 0;
          const responseBody = Buffer.concat(chunks);
          const etag = response.headers.etag;
          if (status === 200 && typeof etag === "string" && etag !== "") {
            settle(null, etag);
            return;
          }
          const code = parseS3ErrorBody(responseBody).code;
          const error =
            status === 200
              ? new ProbeError("protocol", `UploadPart ${partNumber}: no ETag in the response`)
              : s3ResponseError(`UploadPart ${partNumber} of`, this.address, status, responseBody);
          settle(new PartFailure(status !== 200 && isRetryableStatus(status, code), error));
        });
      });
      writeInSlices(request, body, progress);
    });
  }

  async complete(uploadId: string, parts: UploadedPart[]): Promise<string> {
    const xml = `<CompleteMultipartUpload>${parts
      .map(
        (part) =>
          `<Part><PartNumber>${part.partNumber}</PartNumber><ETag>${escapeXml(part.etag)}</ETag></Part>`,
      )
      .join("")}</CompleteMultipartUpload>`;
    const response = await this.small("POST", { uploadId }, Buffer.from(xml));
    const text = response.body.toString("utf8");
    // S3 may answer 200 and still fail: the error is then in the body
    if (response.status !== 200 || text.includes("<Error>"))
      throw s3ResponseError("CompleteMultipartUpload", this.address, response.status, response.body);
    const etag = xmlText(text, "ETag");
    if (!etag)
      throw new ProbeError(
        "protocol",
        `CompleteMultipartUpload s3://${this.address.bucket}/${this.address.key}: no ETag in the response`,
      );
    return etag;
  }

  async abort(uploadId: string): Promise<void> {
    const response = await this.small("DELETE", { uploadId });
    // NoSuchUpload: already gone, which is what we wanted
    if (response.status === 204 || response.status === 200 || response.status === 404) return;
    throw s3ResponseError("AbortMultipartUpload", this.address, response.status, response.body);
  }

  private async small(method: "POST" | "DELETE", query: Record<string, string>, body?: Buffer) {
    const headers = await this.signer.sign(this.address, {
      method,
      query,
      headers: body ? { "content-length": String(body.length), "content-type": "application/xml" } : {},
      payloadSha256: body ? createHash("sha256").update(body).digest("hex") : EMPTY_BODY_SHA256,
    });
    return sendSmallRequest(this.target, method, `${this.address.path}${encodeQuery(query)}`, headers, body);
  }
}

/** A failed part upload; `retryable` when sending the part again may succeed. */
export class PartFailure extends Error {
  constructor(
    readonly retryable: boolean,
    readonly error: Error,
  ) {
    super(error.message);
  }
}

/**
 * The body goes to the socket in 1 MiB views (no copies), one write in flight per connection;
 * each counts when its write completes, and UploadProgress adds what of the slice in flight the
 * kernel already took, so the samples do not move in whole slices. 128 KiB slices instead cost
 * 30-80 % more CPU per GiB in the lab (docs/BENCHMARKS.md).
 */
const SLICE_BYTES = 1_048_576;

function writeInSlices(
  request: import("node:http").ClientRequest,
  body: Buffer,
  progress: UploadProgress,
): void {
  let offset = 0;
  const writeMore = () => {
    while (offset < body.length) {
      const slice = body.subarray(offset, offset + SLICE_BYTES);
      offset += slice.length;
      const length = slice.length;
      progress.sliceWritten(request, length);
      const flowing = request.write(slice, (error) => progress.sliceDone(request, length, !error));
      if (!flowing) {
        request.once("drain", writeMore);
        return;
      }
    }
    request.end();
  };
  writeMore();
}

/** Retries `attempt` while it fails with a retryable PartFailure, with backoff, up to maxRetries. */
export async function withPartRetries<T>(
  describe: string,
  options: {
    maxRetries: number;
    backoffBaseMs: number;
    backoffRandom: () => number;
    signal: AbortSignal;
    onRetry: () => void;
  },
  attempt: () => Promise<T>,
): Promise<T> {
  for (let retry = 0; ; retry += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason ?? error;
      const failure = error instanceof PartFailure ? error : new PartFailure(false, error as Error);
      if (!failure.retryable) throw failure.error;
      if (retry >= options.maxRetries)
        throw new ProbeError(
          "retries-exhausted",
          `${describe}: gave up after ${retry} retries; last error: ${failure.message}`,
          {
            cause: failure.error,
          },
        );
      options.onRetry();
      await sleepUnlessAborted(
        backoffDelayMs(retry + 1, options.backoffBaseMs, undefined, options.backoffRandom),
        options.signal,
      );
    }
  }
}
