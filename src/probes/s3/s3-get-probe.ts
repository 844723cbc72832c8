import { z } from "zod";
import { s3TestObjectPeer } from "../event-peers.js";
import {
  expandList,
  mebibyte,
  oneOrList,
  plannedProbeCommon,
  sizedTransferEstimate,
} from "../plan-fields.js";
import { definePlannedProbe } from "../probe-descriptor.js";
import { s3GetEventSchema } from "./options.js";
import { objectMibSchema } from "./test-object-size.js";

/** s3-get: ranged GETs of one test object, created in the target beforehand. */

const eventShape = s3GetEventSchema.shape;

export const s3GetSpecSchema = z
  .object({
    kind: z.literal("s3-get"),
    /** Size of the test object, MiB. */
    objectMib: objectMibSchema,
    concurrency: eventShape.concurrency,
    chunkMib: eventShape.chunkMib,
    ...plannedProbeCommon,
  })
  .strict();

type S3GetSpec = z.output<typeof s3GetSpecSchema>;

export const s3GetProbe = definePlannedProbe({
  name: "s3-get",
  eventSchema: s3GetEventSchema,
  peer: "s3",
  plan: {
    specSchema: s3GetSpecSchema,
    // a plan file may give `concurrency` as a list: a streams axis
    entrySchema: s3GetSpecSchema.extend({
      concurrency: oneOrList(eventShape.concurrency.unwrap()).default(10),
    }),
    expandEntry: (entry) =>
      expandList<S3GetSpec>(entry, "concurrency", (concurrency) => ` conc ${concurrency}`),
    label: (spec) => `s3-get ${spec.objectMib} MiB conc ${spec.concurrency} chunk ${spec.chunkMib} MiB`,
    names: (spec) => ({
      // the study's "single stream" is a question of its own: one connection's share
      family: `S3 GET${spec.concurrency === 1 ? " single stream" : ""}`,
      short: `s3-get conc ${spec.concurrency}`,
    }),
    buildEvent: (spec, context) => ({
      probe: "s3-get" as const,
      ...s3TestObjectPeer(context),
      concurrency: spec.concurrency,
      chunkMib: spec.chunkMib,
    }),
    estimate: (spec, bytesPerSecond) => sizedTransferEstimate(spec.objectMib * mebibyte, bytesPerSecond),
    directions: () => ["download"],
    movesData: true,
    streams: {
      parameter: "concurrency",
      connections: (_spec, count) => count,
      sweepLabel: (spec) => `s3-get ${spec.objectMib} MiB chunk ${spec.chunkMib} MiB`,
    },
    testObjectBytes: (spec) => spec.objectMib * mebibyte,
    // "auto" ramps connections while each raises the rate: it starts with one
    transfer: (spec) => ({
      bytes: spec.objectMib * mebibyte,
      connections: spec.concurrency === "auto" ? 1 : spec.concurrency,
    }),
  },
});
