import { z } from "zod";
import { definePlannedProbe, mebibyte, plannedProbeCommon, s3Peer } from "../probe-descriptor.js";
import { S3_MAX_OBJECT_MIB, s3PutEventSchema } from "./options.js";

/** s3-put: a multipart upload of incompressible data, under the platform's put prefix. */

const eventShape = s3PutEventSchema.shape;

export const s3PutSpecSchema = z
  .object({
    kind: z.literal("s3-put"),
    sizeMib: z.number().int().min(1).max(S3_MAX_OBJECT_MIB).default(1_024),
    partMib: eventShape.partMib,
    concurrency: eventShape.concurrency,
    ...plannedProbeCommon,
  })
  .strict();

/** Where s3-put writes when the platform grants no prefix of its own. */
const defaultPutKeyPrefix = "lambda-netbench/put/";

export const s3PutProbe = definePlannedProbe({
  name: "s3-put",
  eventSchema: s3PutEventSchema,
  peer: "s3",
  plan: {
    specSchema: s3PutSpecSchema,
    entrySchema: s3PutSpecSchema,
    expandEntry: (entry) => [entry],
    label: (spec) => `s3-put ${spec.sizeMib} MiB conc ${spec.concurrency} part ${spec.partMib} MiB`,
    names: (spec) => ({ family: "S3 PUT", short: `s3-put conc ${spec.concurrency}` }),
    buildEvent: (spec, context) => ({
      probe: "s3-put" as const,
      ...s3Peer(context),
      key: `${context.peers.s3?.putKeyPrefix ?? defaultPutKeyPrefix}${context.invocationName}`,
      sizeMib: spec.sizeMib,
      partMib: spec.partMib,
      concurrency: spec.concurrency,
    }),
    estimate: (spec, bytesPerSecond) => ({
      seconds: (spec.sizeMib * mebibyte) / bytesPerSecond,
      serverBytes: 0,
    }),
    directions: () => ["upload"],
    movesData: true,
    streams: null,
    testObjectBytes: () => null,
    transfer: (spec) => ({ bytes: spec.sizeMib * mebibyte, connections: spec.concurrency }),
  },
});
