import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
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
  /** False on an S3-compatible server without ListObjectVersions (unversioned: keys only). */
  versionsListed: boolean;
  /** False on an S3-compatible server without ListMultipartUploads. */
  uploadsListed: boolean;
}

/** What S3-compatible servers answer for an API they lack. */
function isUnsupported(error: unknown): boolean {
  return ["NotImplemented", "MethodNotAllowed"].includes(errorName(error));
}

/**
 * Deletes keys (or key versions) in batches of 1,000, DeleteObjects' limit. DeleteObjects
 * answers 200 even when some keys fail (access denied, a locked object), listing them in
 * Errors: any such key fails the whole call, naming the first. Returns how many were deleted.
 */
export async function deleteObjects(
  s3: S3Client,
  bucket: string,
  identifiers: ObjectIdentifier[],
): Promise<number> {
  let deleted = 0;
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
    deleted += batch.length;
  }
  return deleted;
}

/**
 * Empties a bucket completely, so CloudFormation can delete it: every object version and
 * delete marker (a versioned bucket keeps them after a plain delete), and every unfinished
 * multipart upload (invisible to listings of objects, but billed). On S3-compatible servers
 * lacking the version or upload listings it falls back to plain keys and says so.
 */
export async function emptyBucket(
  s3: S3Client,
  bucket: string,
  options: { pageSize?: number } = {},
): Promise<EmptyBucketResult> {
  const result: EmptyBucketResult = {
    deletedVersions: 0,
    abortedUploads: 0,
    bucketExisted: true,
    versionsListed: true,
    uploadsListed: true,
  };
  const deleteBatch = async (identifiers: ObjectIdentifier[]) => {
    result.deletedVersions += await deleteObjects(s3, bucket, identifiers);
  };
  try {
    const versionPages = pagesByMarkers(
      (markers) =>
        s3.send(
          new ListObjectVersionsCommand({
            Bucket: bucket,
            KeyMarker: markers?.key,
            VersionIdMarker: markers?.second,
            MaxKeys: options.pageSize,
          }),
        ),
      (page) => ({ key: page.NextKeyMarker, second: page.NextVersionIdMarker }),
      () => {
        result.versionsListed = false;
      },
    );
    for await (const page of versionPages) {
      await deleteBatch(
        [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].flatMap((entry) =>
          entry.Key === undefined
            ? []
            : [
                {
                  Key: entry.Key,
                  ...(entry.VersionId && entry.VersionId !== "null" ? { VersionId: entry.VersionId } : {}),
                },
              ],
        ),
      );
    }

    if (!result.versionsListed) {
      // unversioned listing: delete page by page until the listing comes back empty
      for (;;) {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: options.pageSize }));
        const keys = (page.Contents ?? []).flatMap((entry) =>
          entry.Key === undefined ? [] : [{ Key: entry.Key }],
        );
        if (keys.length === 0) break;
        await deleteBatch(keys);
      }
    }

    const uploadPages = pagesByMarkers(
      (markers) =>
        s3.send(
          new ListMultipartUploadsCommand({
            Bucket: bucket,
            KeyMarker: markers?.key,
            UploadIdMarker: markers?.second,
          }),
        ),
      (page) => ({ key: page.NextKeyMarker, second: page.NextUploadIdMarker }),
      () => {
        result.uploadsListed = false;
      },
    );
    for await (const page of uploadPages) {
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId) continue;
        await s3.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
        );
        result.abortedUploads++;
      }
    }
  } catch (error) {
    if (errorName(error) === "NoSuchBucket") return { ...result, bucketExisted: false };
    throw error;
  }
  return result;
}

type Markers = { key?: string | undefined; second?: string | undefined };

/**
 * Pages of an S3 listing that continues from two markers (ListObjectVersions,
 * ListMultipartUploads: the SDK has no paginator for them). A server that lacks the listing
 * ends it after `onUnsupported`.
 */
async function* pagesByMarkers<Page extends { IsTruncated?: boolean | undefined }>(
  list: (markers: Markers | undefined) => Promise<Page>,
  next: (page: Page) => Markers,
  onUnsupported: () => void,
): AsyncGenerator<Page> {
  let markers: Markers | undefined;
  do {
    let page: Page;
    try {
      page = await list(markers);
    } catch (error) {
      if (!isUnsupported(error)) throw error;
      onUnsupported();
      return;
    }
    yield page;
    markers = page.IsTruncated ? next(page) : undefined;
  } while (markers?.key !== undefined);
}
