import { z } from "zod";
import { iperf3Peer } from "../event-peers.js";
import { expandList, plannedProbeCommon } from "../plan-fields.js";
import { definePlannedProbe } from "../probe-descriptor.js";
import { bucketEventSchema } from "./options.js";

/**
 * The environment's token bucket in one direction against the iperf3 server: a long transfer,
 * then idle gaps each followed by a short transfer. Every field has a default, so
 * `{ kind: bucket }` alone measures both directions (the entry's direction list).
 */

const eventShape = bucketEventSchema.shape;

export const bucketSpecSchema = z
  .object({
    kind: z.literal("bucket"),
    direction: eventShape.direction,
    parallel: eventShape.parallel,
    intervalMs: eventShape.intervalMs,
    transferSeconds: eventShape.transferSeconds,
    gapsSeconds: eventShape.gapsSeconds,
    refillTransferSeconds: eventShape.refillTransferSeconds,
    restSeconds: eventShape.restSeconds,
    ...plannedProbeCommon,
  })
  .strict();

type BucketSpec = z.output<typeof bucketSpecSchema>;

const direction = eventShape.direction.unwrap();

/** The schedule: rest, the long transfer, every gap and its short transfer (the spec and the event name them alike). */
function scheduleSeconds(
  spec: Pick<BucketSpec, "gapsSeconds" | "restSeconds" | "transferSeconds" | "refillTransferSeconds">,
): number {
  const gaps = spec.gapsSeconds.reduce((sum, gap) => sum + gap, 0);
  const rest = spec.restSeconds ?? Math.max(...spec.gapsSeconds);
  return rest + spec.transferSeconds + gaps + spec.gapsSeconds.length * spec.refillTransferSeconds;
}

export const bucketProbe = definePlannedProbe({
  name: "bucket",
  eventSchema: bucketEventSchema,
  peer: "iperf3-server",
  peerSeconds: scheduleSeconds,
  plan: {
    specSchema: bucketSpecSchema,
    // a plan file may give `direction` as a list; by default both, one cell each
    entrySchema: bucketSpecSchema.extend({
      direction: z
        .union([direction, z.array(direction)])
        .default(["download", "upload"])
        .refine(
          (value) => !Array.isArray(value) || (value.length > 0 && new Set(value).size === value.length),
          { message: "directions must be distinct, at least one" },
        ),
    }),
    expandEntry: (entry) => expandList<BucketSpec>(entry, "direction", (value) => ` ${value}`),
    label: (spec) => `bucket ${spec.direction} -P ${spec.parallel} ${spec.intervalMs} ms`,
    names: () => ({ family: "bucket", short: "bucket" }),
    buildEvent: (spec, context) => ({
      probe: "bucket" as const,
      ...iperf3Peer(context),
      direction: spec.direction,
      parallel: spec.parallel,
      intervalMs: spec.intervalMs,
      transferSeconds: spec.transferSeconds,
      gapsSeconds: spec.gapsSeconds,
      refillTransferSeconds: spec.refillTransferSeconds,
      ...(spec.restSeconds !== undefined ? { restSeconds: spec.restSeconds } : {}),
    }),
    estimate: (spec, bytesPerSecond) => ({
      seconds: scheduleSeconds(spec),
      serverBytes:
        bytesPerSecond * (spec.transferSeconds + spec.gapsSeconds.length * spec.refillTransferSeconds),
    }),
    // its rates are read by the bucket fit (peak, sustained, refill), not against the quota
    directions: () => [],
    movesData: true,
    streams: null,
    testObjectBytes: () => null,
    // built to outlast the burst: it fits the bucket itself
    transfer: () => null,
  },
});
