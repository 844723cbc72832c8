import { z } from "zod";
import { intervalMsOption } from "../interval-option.js";

/** S3's largest object, 5 TiB, in MiB. */
export const S3_MAX_OBJECT_MIB = 5_242_880;

/** The S3 probes' options (strict, like every probe's); the agent's event and the plan compose them. */

/** Which object, where, and how a request reaches it: every probe that reads S3 takes these. */
export const s3ObjectFields = {
  /** S3-compatible endpoint URL; omit for AWS S3. */
  endpoint: z.url().optional(),
  region: z.string().min(1).default("us-east-1"),
  bucket: z.string().min(3).max(63),
  key: z.string().min(1).max(1024),
  pathStyle: z.boolean().default(false),
  /** false: anonymous requests, unsigned (the AWS CLI's --no-sign-request), for public objects. */
  signRequest: z.boolean().default(true),
  /** PEM CA bundle for TLS to a local server (the content, not a path: Lambda has no such file). */
  caPem: z.string().optional(),
};

const s3Common = {
  ...s3ObjectFields,
  intervalMs: intervalMsOption,
  deadlineSeconds: z.number().min(1).max(900).default(300),
  /** Idle limit of one request: no response or no body byte for this long fails (and retries) it. */
  requestTimeoutMs: z.number().int().min(100).max(600_000).default(20_000),
};

export const s3GetEventSchema = z
  .object({
    probe: z.literal("s3-get"),
    ...s3Common,
    concurrency: z.union([z.number().int().min(1).max(64), z.literal("auto")]).default(10),
    chunkMib: z.number().min(1).max(5_120).default(16),
    maxRetries: z.number().int().min(0).max(20).default(5),
  })
  .strict();

export const s3PutEventSchema = z
  .object({
    probe: z.literal("s3-put"),
    ...s3Common,
    sizeMib: z.number().min(1).max(S3_MAX_OBJECT_MIB),
    partMib: z.number().min(5).max(5_120).default(64),
    concurrency: z.number().int().min(1).max(64).default(8),
    maxRetries: z.number().int().min(0).max(20).default(5),
  })
  .strict();

export type S3GetEvent = z.output<typeof s3GetEventSchema>;
export type S3PutEvent = z.output<typeof s3PutEventSchema>;
