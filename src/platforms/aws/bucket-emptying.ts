import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  type ObjectIdentifier,
  type S3Client,
} from "@aws-sdk/client-s3";
import { errorName } from "./backoff.js";

export interface EmptyBucketResult {
  /** Object versions and delete markers removed. */
  deletedVersions: number;
  abortedUploads: number;
  /** False when the bucket did not exist (nothing to do). */
  bucketExisted: boolean;
}

/**
 * Empties a bucket completely, so CloudFormation can delete it: every object version and
 * delete marker (a versioned bucket keeps them after a plain delete), and every unfinished
 * multipart upload (invisible to listings of objects, but billed).
 */
export async function emptyBucket(s3: S3Client, bucket: string): Promise<EmptyBucketResult> {
  const result: EmptyBucketResult = { deletedVersions: 0, abortedUploads: 0, bucketExisted: true };
  try {
    let keyMarker: string | undefined;
    let versionIdMarker: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectVersionsCommand({
          Bucket: bucket,
          KeyMarker: keyMarker,
          VersionIdMarker: versionIdMarker,
        }),
      );
      const identifiers: ObjectIdentifier[] = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
        .filter((entry) => entry.Key !== undefined)
        .map((entry) => ({
          Key: entry.Key as string,
          ...(entry.VersionId && entry.VersionId !== "null" ? { VersionId: entry.VersionId } : {}),
        }));
      for (let start = 0; start < identifiers.length; start += 1000) {
        const batch = identifiers.slice(start, start + 1000);
        const response = await s3.send(
          new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } }),
        );
        if (response.Errors && response.Errors.length > 0) {
          const first = response.Errors[0];
          throw new Error(
            `could not delete ${response.Errors.length} object(s) from ${bucket}, first ${first?.Key}: ${first?.Code} ${first?.Message}`,
          );
        }
        result.deletedVersions += batch.length;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      versionIdMarker = page.IsTruncated ? page.NextVersionIdMarker : undefined;
    } while (keyMarker !== undefined);

    let uploadKeyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await s3.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          KeyMarker: uploadKeyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId) continue;
        await s3.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
        );
        result.abortedUploads++;
      }
      uploadKeyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (uploadKeyMarker !== undefined);
  } catch (error) {
    if (errorName(error) === "NoSuchBucket") return { ...result, bucketExisted: false };
    throw error;
  }
  return result;
}
