import type { S3GetEvent } from "../../agent/event.js";
import { ProbeError } from "../probe-error.js";
import type { ProbeOutcome } from "../probe-outcome.js";

export async function runS3GetProbe(_event: S3GetEvent): Promise<ProbeOutcome> {
  throw new ProbeError("internal", "s3-get probe: being built (issue 3)");
}
