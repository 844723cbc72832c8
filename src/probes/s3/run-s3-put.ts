import { startCpuClock } from "../cpu-clock.js";
import { IntervalSampler } from "../interval-sampler.js";
import { mebibyte } from "../plan-fields.js";
import { ProbeError } from "../probe-error.js";
import type { ProbeOutcome } from "../probe-outcome.js";
import { startRetransmitCounter } from "../retransmits.js";
import { headObject } from "./head-object.js";
import { IncompressibleData } from "./incompressible-data.js";
import { MultipartUploadClient, type UploadedPart, withPartRetries } from "./multipart-upload.js";
import type { S3PutEvent } from "./options.js";
import type { S3ProbeDependencies } from "./run-s3-get.js";
import { resolveObjectAddress } from "./s3-address.js";
import { explainAnonymousDenial, S3RequestSigner } from "./s3-signer.js";
import { createKeepAliveAgent, type RequestTarget } from "./s3-transport.js";
import type { S3TransferDetail } from "./transfer-detail.js";
import { transferSummary } from "./transfer-summary.js";
import { UploadProgress } from "./upload-progress.js";

const MAX_PARTS = 10_000;

/**
 * `bytes`: the object's size (every byte uploaded and verified by HEAD); `seconds`: the upload,
 * from the first part request to CompleteMultipartUpload's answer (the object exists only then).
 */
export interface S3PutDetail extends S3TransferDetail {
  probe: "s3-put";
  /** Of `seconds`: from the last part's response to CompleteMultipartUpload's answer. */
  completeSeconds: number;
  partBytes: number;
  parts: number;
  concurrency: number;
  /** Create + upload (parts and complete) + HEAD. */
  totalSeconds: number;
  etag: string;
  /** The HEAD after completion saw this size and ETag. */
  verified: { sizeBytes: number; etag: string };
}

/**
 * Creates the test object: a multipart upload of generated incompressible data, `concurrency`
 * parts in flight, each retried on transient failures. Verified by HEAD (size and ETag). Any
 * failure before completion aborts the upload, so no orphaned parts stay behind to be billed.
 */
export async function runS3PutProbe(
  event: S3PutEvent,
  dependencies: S3ProbeDependencies = {},
): Promise<ProbeOutcome<S3PutDetail>> {
  const address = resolveObjectAddress(event);
  const sizeBytes = Math.round(event.sizeMib * mebibyte);
  const partBytes = Math.round(event.partMib * mebibyte);
  const partCount = Math.ceil(sizeBytes / partBytes);
  if (partCount > MAX_PARTS)
    throw new ProbeError(
      "invalid-input",
      `partMib: ${event.sizeMib} MiB in ${event.partMib} MiB parts makes ${partCount} parts; S3 allows at most ${MAX_PARTS} (use partMib >= ${Math.ceil(event.sizeMib / MAX_PARTS)})`,
    );
  const target: RequestTarget = {
    address,
    agent: createKeepAliveAgent(address, event.concurrency, event.caPem),
    requestTimeoutMs: event.requestTimeoutMs,
  };
  const signer = new S3RequestSigner(event.region, dependencies.credentials, {
    signRequest: event.signRequest,
  });
  const client = new MultipartUploadClient(target, signer);
  const backoffBaseMs = dependencies.backoffBaseMs ?? 100;
  const backoffRandom = dependencies.backoffRandom ?? Math.random;
  const deadline = new AbortController();
  const object = `s3://${event.bucket}/${event.key}`;
  const deadlineTimer = setTimeout(
    () =>
      deadline.abort(
        new ProbeError(
          "deadline",
          `s3-put ${object}: deadline of ${event.deadlineSeconds} s reached before the upload completed`,
        ),
      ),
    event.deadlineSeconds * 1000,
  );
  const onDeadline = () => {
    for (const socket of Object.values(target.agent.sockets).flat()) socket?.destroy();
  };
  deadline.signal.addEventListener("abort", onDeadline, { once: true });
  const totalStartMs = performance.now();
  let uploadId: string | undefined;
  try {
    const data = new IncompressibleData(Math.min(partBytes, sizeBytes));
    uploadId = await client.create();
    const activeUploadId = uploadId;
    const countRetransmits = await startRetransmitCounter();
    // samples of what crossed the link: accepted body bytes minus what the send buffers still hold
    const progress = new UploadProgress();
    const sampler = new IntervalSampler(event.intervalMs, progress);
    const uploaded: UploadedPart[] = [];
    let retries = 0;
    let nextPart = 1;
    let failure: Error | undefined;
    const cpu = startCpuClock();
    const startMs = performance.now();
    sampler.start(startMs);
    const worker = async () => {
      while (!failure && !deadline.signal.aborted && nextPart <= partCount) {
        const partNumber = nextPart;
        nextPart += 1;
        const length = Math.min(partBytes, sizeBytes - (partNumber - 1) * partBytes);
        const body = data.part(partNumber, length);
        const etag = await withPartRetries(
          `UploadPart ${partNumber} of ${object}`,
          {
            maxRetries: event.maxRetries,
            backoffBaseMs,
            backoffRandom,
            signal: deadline.signal,
            onRetry: () => {
              retries += 1;
            },
          },
          () => client.uploadPart(activeUploadId, partNumber, body, progress),
        );
        uploaded.push({ partNumber, etag });
      }
    };
    const workers = Array.from({ length: Math.min(event.concurrency, partCount) }, () =>
      worker().catch((error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
        // stop the other parts at once: the upload is lost anyway
        for (const socket of Object.values(target.agent.sockets).flat()) socket?.destroy();
      }),
    );
    await Promise.all(workers);
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (failure) throw failure;
    const partsAnsweredMs = performance.now();
    const partSamples = sampler.stop(partsAnsweredMs);
    uploaded.sort((a, b) => a.partNumber - b.partNumber);
    const etag = await client.complete(activeUploadId, uploaded);
    uploadId = undefined; // completed: nothing left to abort
    // the clock stops at the completion's answer: a clock stopped at the last part read a PUT
    // as faster than the object was stored (and "100 GB take ..." and cost per GB with it)
    const endMs = performance.now();
    const cpuSeconds = cpu();
    const retransmits = await countRetransmits();
    const seconds = (endMs - startMs) / 1000;
    const head = await headObject(target, signer, {
      maxRetries: event.maxRetries,
      backoffBaseMs,
      backoffRandom,
      signal: deadline.signal,
    });
    if (head.sizeBytes !== sizeBytes)
      throw new ProbeError(
        "protocol",
        `s3-put ${object}: HEAD after upload reports ${head.sizeBytes} bytes, expected ${sizeBytes}`,
      );
    if (stripQuotes(head.etag) !== stripQuotes(etag))
      throw new ProbeError(
        "protocol",
        `s3-put ${object}: HEAD after upload reports ETag ${head.etag}, the upload completed as ${etag}`,
      );
    const { summary, rates } = transferSummary({
      bytes: sizeBytes,
      seconds,
      cpuSeconds,
      retransmits,
      retries,
      direction: "upload",
      // the link's samples, up to the last part's answer: the completion moves nothing, and its
      // wait (2.4-2.7 s for 1 GiB on the lab) folded into them read a 1,450 Mbit/s link as 873
      // sustained; it is in seconds, the rate and completeSeconds instead
      samples: partSamples,
    });
    // the sender side is all s3-put knows: every byte of the object, sent in the upload
    summary.sent = {
      bytes: sizeBytes,
      seconds,
      bitsPerSecond: rates.bitsPerSecond,
      retransmits,
    };
    const detail: S3PutDetail = {
      probe: "s3-put",
      bucket: event.bucket,
      key: event.key,
      endpoint: `${address.protocol}//${address.hostHeader}`,
      bytes: sizeBytes,
      seconds,
      bitsPerSecond: rates.bitsPerSecond,
      mbps: rates.mbps,
      completeSeconds: (endMs - partsAnsweredMs) / 1000,
      cpuSeconds,
      cpuSecondsPerGib: rates.cpuSecondsPerGib,
      retries,
      retransmits,
      samples: partSamples,
      partBytes,
      parts: partCount,
      concurrency: event.concurrency,
      totalSeconds: (performance.now() - totalStartMs) / 1000,
      etag,
      verified: { sizeBytes: head.sizeBytes, etag: head.etag },
    };
    return { summary, detail };
  } catch (error) {
    if (uploadId === undefined) throw explainAnonymousDenial(signer, error);
    throw await abortAfterFailure(client, uploadId, object, explainAnonymousDenial(signer, error));
  } finally {
    clearTimeout(deadlineTimer);
    deadline.signal.removeEventListener("abort", onDeadline);
    target.agent.destroy();
  }
}

/** Aborts the upload (with a few tries of its own) and says in the error whether that worked. */
async function abortAfterFailure(
  client: MultipartUploadClient,
  uploadId: string,
  object: string,
  error: unknown,
): Promise<ProbeError> {
  const original =
    error instanceof ProbeError
      ? error
      : new ProbeError("internal", error instanceof Error ? error.message : String(error));
  let lastAbortError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await client.abort(uploadId);
      return new ProbeError(
        original.kind,
        `${original.message}; multipart upload ${uploadId} aborted (no parts left behind)`,
        {
          cause: error,
        },
      );
    } catch (abortError) {
      lastAbortError = abortError;
      await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
    }
  }
  const reason = lastAbortError instanceof Error ? lastAbortError.message : String(lastAbortError);
  return new ProbeError(
    original.kind,
    `${original.message}; ABORT of multipart upload ${uploadId} of ${object} FAILED (${reason}): its parts may still be stored and billed; abort it with \`aws s3api abort-multipart-upload\``,
    { cause: error },
  );
}

function stripQuotes(etag: string): string {
  return etag.replace(/"/g, "");
}
