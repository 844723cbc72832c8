import { HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { AgentEventInput } from "../../agent/event.js";
import { testObjectSizeProblem } from "../../probes/s3/test-object-size.js";
import type { InvocationOutcome } from "../../results/invocation-outcome.js";
import { errorName } from "./backoff.js";
import { testObjectKey } from "./naming.js";

const mib = 1_048_576;

/**
 * Makes sure the bucket holds a test object of exactly `bytes` bytes, created inside the
 * region by the agent's s3-put probe (never uploaded from the user's machine), then checked
 * with HEAD. Returns its key.
 */
export async function ensureTestObject(
  s3: S3Client,
  target: { bucket: string; region: string; endpoint?: string; pathStyle?: boolean },
  bytes: number,
  invoke: (event: AgentEventInput) => Promise<InvocationOutcome>,
): Promise<string> {
  const sizeProblem = testObjectSizeProblem(bytes);
  if (sizeProblem) throw new Error(sizeProblem);
  const key = testObjectKey(bytes);
  if ((await headLength(s3, target.bucket, key)) === bytes) return key;
  const outcome = await invoke({
    probe: "s3-put",
    region: target.region,
    bucket: target.bucket,
    key,
    sizeMib: bytes / mib,
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    ...(target.pathStyle ? { pathStyle: true } : {}),
  });
  if (outcome.failure)
    throw new Error(`s3-put of ${key} failed (${outcome.failure.kind}): ${outcome.failure.message}`);
  if (outcome.response && !outcome.response.ok)
    throw new Error(
      `s3-put of ${key} failed (${outcome.response.error.kind}): ${outcome.response.error.message}`,
    );
  const length = await headLength(s3, target.bucket, key);
  if (length !== bytes)
    throw new Error(`s3-put of ${key} left ${length ?? "no object"} bytes, expected exactly ${bytes}`);
  return key;
}

async function headLength(s3: S3Client, bucket: string, key: string): Promise<number | null> {
  try {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return head.ContentLength ?? null;
  } catch (error) {
    if (errorName(error) === "NotFound" || errorName(error) === "NoSuchKey") return null;
    throw error;
  }
}
