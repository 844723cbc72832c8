import { z } from "zod";
import { s3TestObjectPeer } from "../event-peers.js";
import { expandList, mebibyte, oneOrList, plannedProbeCommon } from "../plan-fields.js";
import { definePlannedProbe } from "../probe-descriptor.js";
import { CONNECTION_MODES, latencyEventSchema } from "./options.js";

/**
 * latency: small GETs of a test object, kept-alive and on new connections, each phase timed;
 * the TCP connect time to the iperf3 server when the target has one. `bytes` may be a list:
 * one cell per size.
 */

const eventShape = latencyEventSchema.shape;
const requestBytes = z.number().int().min(1).max(1_073_741_824);

const specShape = {
  kind: z.literal("latency"),
  /** Bytes each GET reads: a range of a test object's first bytes, or the whole object. */
  bytes: requestBytes.default(65_536),
  /** true: each GET reads a whole test object of `bytes` (whole MiB, at least 1: the test objects' sizes). */
  wholeObject: z.boolean().default(false),
  requests: eventShape.requests,
  warmupRequests: eventShape.warmupRequests,
  connections: eventShape.connections,
  /** TCP connects to the iperf3 server (0: none), for the round trip a study measured. */
  iperf3Connects: z.number().int().min(0).max(1_000).default(20),
  ...plannedProbeCommon,
};

/** A whole-object GET reads a test object, whose size is a whole number of MiB. */
const wholeObjectRule = {
  check: (spec: { wholeObject: boolean; bytes: number | number[] }) =>
    !spec.wholeObject || [spec.bytes].flat().every((b) => b >= mebibyte && b % mebibyte === 0),
  issue: {
    message:
      "with wholeObject, bytes must be a whole number of MiB, at least 1,048,576 (the test objects' sizes)",
    path: ["bytes"],
  },
};

export const latencySpecSchema = z
  .object(specShape)
  .strict()
  .refine(wholeObjectRule.check, wholeObjectRule.issue);

// a plan file may give `bytes` as a list: one cell per size
const latencyEntrySchema = z
  .object({ ...specShape, bytes: oneOrList(requestBytes).default(65_536) })
  .strict()
  .refine(wholeObjectRule.check, wholeObjectRule.issue);

type LatencySpec = z.output<typeof latencySpecSchema>;

/** 1 KiB, 64 KiB, 1 MiB, 1500 B: the sizes as people name them. */
export function requestSizeText(bytes: number): string {
  if (bytes % mebibyte === 0) return `${bytes / mebibyte} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

/** An upper estimate of one request on a small CPU share (128 MB waits out its CFS quota: ~0.1 s). */
const SECONDS_PER_REQUEST = 0.1;

export const latencyProbe = definePlannedProbe({
  name: "latency",
  eventSchema: latencyEventSchema,
  peer: "s3",
  plan: {
    specSchema: latencySpecSchema,
    entrySchema: latencyEntrySchema,
    expandEntry: (entry) =>
      expandList<LatencySpec>(entry, "bytes", (bytes) => ` ${requestSizeText(Number(bytes))}`),
    label: (spec) =>
      `latency ${requestSizeText(spec.bytes)} ${spec.wholeObject ? "GET" : "ranged GET"} x${spec.requests} ${connectionsText(spec)}`,
    names: (spec) => ({ family: "S3 GET latency", short: `latency ${requestSizeText(spec.bytes)}` }),
    buildEvent: (spec, context) => {
      const iperf3 = context.peers.iperf3;
      const port = iperf3?.ports[0];
      return {
        probe: "latency" as const,
        ...s3TestObjectPeer(context),
        bytes: spec.wholeObject ? null : spec.bytes,
        requests: spec.requests,
        warmupRequests: spec.warmupRequests,
        connections: spec.connections,
        // a connect, then a close: no test starts, so any of the server's ports will do
        ...(iperf3 && port !== undefined && spec.iperf3Connects > 0
          ? { iperf3: { host: iperf3.host, port, connects: spec.iperf3Connects } }
          : {}),
      };
    },
    estimate: (spec, bytesPerSecond) => {
      const requests = (spec.requests + spec.warmupRequests) * spec.connections.length;
      return {
        seconds: requests * (SECONDS_PER_REQUEST + spec.bytes / bytesPerSecond) + spec.iperf3Connects * 0.05,
        serverBytes: 0,
      };
    },
    directions: () => [],
    // its bytes are no transfer rate: the report reads its times (src/results/latency-cells.ts)
    movesData: false,
    streams: null,
    testObjectBytes: (spec) => (spec.wholeObject ? spec.bytes : Math.ceil(spec.bytes / mebibyte) * mebibyte),
    // many small requests, timed, not one transfer with a sustained rate
    transfer: () => null,
  },
});

function connectionsText(spec: LatencySpec): string {
  return spec.connections.length === CONNECTION_MODES.length ? "kept-alive+new" : spec.connections.join("+");
}
