import { z } from "zod";
import { s3Peer } from "../event-peers.js";
import { mebibyte, plannedProbeCommon, sizedTransferEstimate } from "../plan-fields.js";
import { definePlannedProbe } from "../probe-descriptor.js";
import { s3PutEventSchema } from "./options.js";
import { objectMibSchema } from "./test-object-size.js";

/** s3-put: a multipart upload of incompressible data, under the platform's put prefix. */

const eventShape = s3PutEventSchema.shape;

export const s3PutSpecSchema = z
  .object({
    kind: z.literal("s3-put"),
    sizeMib: objectMibSchema,
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
    estimate: (spec, bytesPerSecond) => sizedTransferEstimate(spec.sizeMib * mebibyte, bytesPerSecond),
    directions: () => ["upload"],
    movesData: true,
    streams: null,
    testObjectBytes: () => null,
    transfer: (spec) => ({ bytes: spec.sizeMib * mebibyte, connections: spec.concurrency }),
  },
});
