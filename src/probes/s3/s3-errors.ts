import { ProbeError, type ProbeErrorKind } from "../probe-error.js";
import { xmlText } from "./xml-text.js";

/** The `<Code>` and `<Message>` of an S3 error document (empty for bodiless responses like HEAD's). */
export function parseS3ErrorBody(body: Buffer | string): { code: string | null; message: string | null } {
  const text = typeof body === "string" ? body : body.toString("utf8");
  return { code: xmlText(text, "Code"), message: xmlText(text, "Message") };
}

/** Worth another try: the server or the path had a moment, not the request a mistake. */
export function isRetryableStatus(status: number, code: string | null): boolean {
  if (status === 500 || status === 502 || status === 503 || status === 504 || status === 429) return true;
  return code === "RequestTimeout" || code === "SlowDown" || code === "InternalError";
}

const codeKinds: Record<string, ProbeErrorKind> = {
  NoSuchKey: "not-found",
  NoSuchBucket: "not-found",
  NoSuchUpload: "not-found",
  AccessDenied: "access-denied",
  AllAccessDisabled: "access-denied",
  InvalidAccessKeyId: "auth-failed",
  ExpiredToken: "auth-failed",
  InvalidToken: "auth-failed",
  SignatureDoesNotMatch: "signature-mismatch",
  PreconditionFailed: "precondition-failed",
  SlowDown: "server-busy",
  InternalError: "server-error",
};

const codeHints: Record<string, string> = {
  NoSuchKey: "the object does not exist",
  NoSuchBucket: "the bucket does not exist",
  NoSuchUpload: "the multipart upload does not exist (aborted or completed)",
  AccessDenied: "the credentials are not allowed to do this (check the IAM policy and the bucket policy)",
  InvalidAccessKeyId: "the access key id is not known to this endpoint",
  SignatureDoesNotMatch: "the secret key does not match the access key, or the request was altered",
  PreconditionFailed: "the object changed while it was being read (its ETag no longer matches)",
  SlowDown: "the server asks to reduce the request rate",
};

/**
 * A clear error for a failed S3 response, naming the operation, bucket and key, the S3 error
 * code and what it usually means.
 */
export function s3ResponseError(
  operation: string,
  target: { bucket: string; key: string },
  status: number,
  body: Buffer | string,
  fallbackCode?: string,
): ProbeError {
  const parsed = parseS3ErrorBody(body);
  const code = parsed.code ?? fallbackCode ?? statusCode(status);
  const kind: ProbeErrorKind =
    codeKinds[code] ?? (status >= 500 ? "server-error" : status === 404 ? "not-found" : "http-error");
  const hint = codeHints[code];
  const detail = parsed.message ? `: ${parsed.message}` : "";
  return new ProbeError(
    kind,
    `${operation} s3://${target.bucket}/${target.key} failed: HTTP ${status} ${code}${detail}${hint ? ` (${hint})` : ""}`,
  );
}

function statusCode(status: number): string {
  if (status === 404) return "NotFound";
  if (status === 403) return "Forbidden";
  if (status === 412) return "PreconditionFailed";
  return `Status${status}`;
}
