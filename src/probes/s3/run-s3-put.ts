import type { S3PutEvent } from "../../agent/event.js";
import { ProbeError } from "../probe-error.js";
import type { ProbeOutcome } from "../probe-outcome.js";

export async function runS3PutProbe(_event: S3PutEvent): Promise<ProbeOutcome> {
  throw new ProbeError("internal", "s3-put probe: being built (issue 3)");
}
