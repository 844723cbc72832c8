import { randomBytes } from "node:crypto";
import { escapeXml } from "../../../probes/s3/xml-text.js";

/**
 * S3's response documents and error shapes, as the lab's S3 server sends them (the element
 * names and codes are S3's, from its API reference, so SDKs classify them as they would on AWS).
 */

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** An S3 error: HTTP status, `<Code>`, `<Message>` and the extra elements some codes carry. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function newRequestId(): string {
  return randomBytes(8).toString("hex").toUpperCase();
}

export function errorDocument(error: S3Error, resource: string, requestId: string): string {
  const extra = Object.entries(error.extra)
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join("");
  return `${XML_DECLARATION}<Error><Code>${error.code}</Code><Message>${escapeXml(error.message)}</Message>${extra}<Resource>${escapeXml(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`;
}

export const noSuchBucket = (bucket: string) =>
  new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", { BucketName: bucket });
export const noSuchKey = (key: string) =>
  new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });
export const noSuchUpload = (uploadId: string) =>
  new S3Error(
    404,
    "NoSuchUpload",
    "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
    { UploadId: uploadId },
  );
export const invalidPart = (partNumber: number, etag: string) =>
  new S3Error(
    400,
    "InvalidPart",
    "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
    { UploadId: "", PartNumber: String(partNumber), ETag: etag },
  );
export const invalidPartOrder = () =>
  new S3Error(
    400,
    "InvalidPartOrder",
    "The list of parts was not in ascending order. The parts list must be specified in order by part number.",
  );
export const entityTooSmall = (
  proposedBytes: number,
  minimumBytes: number,
  partNumber: number,
  etag: string,
) =>
  new S3Error(
    400,
    "EntityTooSmall",
    "Your proposed upload is smaller than the minimum allowed object size.",
    {
      ProposedSize: String(proposedBytes),
      MinSizeAllowed: String(minimumBytes),
      PartNumber: String(partNumber),
      ETag: etag,
    },
  );
export const entityTooLarge = (proposedBytes: number, maximumBytes: number) =>
  new S3Error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size", {
    ProposedSize: String(proposedBytes),
    MaxSizeAllowed: String(maximumBytes),
  });
export const malformedXml = () =>
  new S3Error(
    400,
    "MalformedXML",
    "The XML you provided was not well-formed or did not validate against our published schema",
  );
export const invalidArgument = (message: string, name: string, value: string) =>
  new S3Error(400, "InvalidArgument", message, { ArgumentName: name, ArgumentValue: value });
export const badDigest = () =>
  new S3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
export const invalidDigest = () =>
  new S3Error(400, "InvalidDigest", "The Content-MD5 you specified was an invalid.");
export const preconditionFailed = (condition: string) =>
  new S3Error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold", {
    Condition: condition,
  });
export const notImplemented = (what: string) =>
  new S3Error(
    501,
    "NotImplemented",
    `A header or query you provided implies functionality that is not implemented (the lab's S3 server does not implement ${what})`,
  );
export const methodNotAllowed = (method: string) =>
  new S3Error(405, "MethodNotAllowed", "The specified method is not allowed against this resource.", {
    Method: method,
  });
