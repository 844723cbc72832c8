import { ProbeError } from "../probe-error.js";
import { backoffDelayMs, sleepUnlessAborted } from "../retry-backoff.js";
import { isRetryableStatus, parseS3ErrorBody, s3ResponseError } from "./s3-errors.js";
import { EMPTY_BODY_SHA256, type S3RequestSigner } from "./s3-signer.js";
import { type RequestTarget, sendSmallRequest } from "./s3-transport.js";

export interface ObjectHead {
  sizeBytes: number;
  /** The ETag exactly as the server sent it (quoted), for If-Match. */
  etag: string;
}

/**
 * HEAD the object for its size and ETag, retrying transient failures. A HEAD error has no
 * body, so on 403/404 one ranged GET of a single byte fetches the error document: the user
 * then reads NoSuchBucket vs NoSuchKey, AccessDenied vs SignatureDoesNotMatch.
 */
export async function headObject(
  target: RequestTarget,
  signer: S3RequestSigner,
  options: { maxRetries: number; backoffBaseMs: number; backoffRandom: () => number; signal: AbortSignal },
): Promise<ObjectHead> {
  const { address } = target;
  for (let retry = 0; ; retry += 1) {
    let failure: ProbeError;
    try {
      const headers = await signer.sign(address, { method: "HEAD", payloadSha256: EMPTY_BODY_SHA256 });
      const response = await sendSmallRequest(target, "HEAD", address.path, headers);
      if (response.status === 200) {
        const sizeBytes = Number(response.headers["content-length"]);
        const etag = response.headers.etag;
        if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0)
          throw new ProbeError(
            "protocol",
            `HEAD s3://${address.bucket}/${address.key}: no valid Content-Length`,
          );
        if (typeof etag !== "string" || etag === "")
          throw new ProbeError("protocol", `HEAD s3://${address.bucket}/${address.key}: no ETag`);
        return { sizeBytes, etag };
      }
      if (!isRetryableStatus(response.status, null)) {
        throw await explainHeadFailure(target, signer, response.status);
      }
      failure = s3ResponseError("HEAD", address, response.status, response.body);
    } catch (error) {
      if (error instanceof ProbeError) throw error;
      // a name that does not resolve will not resolve on a retry either: fail at once
      if ((error as NodeJS.ErrnoException).code === "ENOTFOUND")
        throw new ProbeError(
          "unreachable",
          `HEAD s3://${address.bucket}/${address.key}: host ${address.hostname} not found (DNS); check --endpoint and --region`,
          { cause: error },
        );
      failure = new ProbeError(
        "unreachable",
        `HEAD s3://${address.bucket}/${address.key} (${address.hostHeader}): ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (options.signal.aborted) throw options.signal.reason ?? failure;
    if (retry >= options.maxRetries) {
      throw new ProbeError(
        "retries-exhausted",
        `${failure.message} (gave up after ${options.maxRetries} retries)`,
        { cause: failure },
      );
    }
    await sleepUnlessAborted(
      backoffDelayMs(retry + 1, options.backoffBaseMs, undefined, options.backoffRandom),
      options.signal,
    );
  }
}

async function explainHeadFailure(
  target: RequestTarget,
  signer: S3RequestSigner,
  headStatus: number,
): Promise<ProbeError> {
  const { address } = target;
  try {
    const headers = await signer.sign(address, {
      method: "GET",
      headers: { range: "bytes=0-0" },
      payloadSha256: EMPTY_BODY_SHA256,
    });
    const response = await sendSmallRequest(target, "GET", address.path, headers);
    if (response.status >= 400 && parseS3ErrorBody(response.body).code !== null)
      return s3ResponseError("HEAD", address, headStatus, response.body);
  } catch {
    // the explanation is best effort; the HEAD status alone is reported below
  }
  return s3ResponseError("HEAD", address, headStatus, "");
}
