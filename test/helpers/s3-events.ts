import {
  type S3GetEvent,
  type S3PutEvent,
  s3GetEventSchema,
  s3PutEventSchema,
} from "../../src/probes/s3/options.js";
import { S3RVER_CREDENTIALS } from "./s3rver-instance.js";

/** Events for the S3 probes against a test server, through the real schema (so defaults apply). */
export function getEvent(fields: Record<string, unknown>): S3GetEvent {
  return s3GetEventSchema.parse({ probe: "s3-get", pathStyle: true, region: "us-east-1", ...fields });
}

export function putEvent(fields: Record<string, unknown>): S3PutEvent {
  return s3PutEventSchema.parse({ probe: "s3-put", pathStyle: true, region: "us-east-1", ...fields });
}

export const s3rverCredentials = async () => S3RVER_CREDENTIALS;
/** Fast retries for tests: 20 ms, 40 ms, 80 ms, ... */
export const testDependencies = { credentials: s3rverCredentials, backoffBaseMs: 20 };
