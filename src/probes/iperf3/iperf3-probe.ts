import { z } from "zod";
import { iperf3Peer } from "../event-peers.js";
import { expandList, oneOrList, plannedProbeCommon } from "../plan-fields.js";
import { definePlannedProbe } from "../probe-descriptor.js";
import { iperf3EventSchema } from "./options.js";

/** iperf3 against the target's iperf3 server: one direction (or both) for a fixed time. */

const eventShape = iperf3EventSchema.shape;

export const iperf3SpecSchema = z
  .object({
    kind: z.literal("iperf3"),
    timeSeconds: z.number().min(1).max(600).default(10),
    parallel: eventShape.parallel.unwrap().default(4),
    /** upload = environment sends (iperf3 default); download = -R; bidir = --bidir. */
    direction: z.enum(["upload", "download", "bidir"]).default("upload"),
    omitSeconds: z.number().min(0).max(60).default(0),
    /** Sampling interval of the record's samples, ms (the agent's default, 250, when absent). */
    intervalMs: eventShape.intervalMs.unwrap().optional(),
    /** Idle seconds before each test, so each starts with a refilled bucket (a replay's first samples). */
    restSeconds: eventShape.restSeconds.removeDefault().optional(),
    ...plannedProbeCommon,
  })
  .strict();

type Iperf3Spec = z.output<typeof iperf3SpecSchema>;

const directionShort = { upload: "up", download: "down", bidir: "bidir" } as const;

/** Both directions of a bidir test move at once: its quota and its streams count twice. */
const directionCount = (spec: Pick<Iperf3Spec, "direction">) => (spec.direction === "bidir" ? 2 : 1);

/** The test's length, omitted seconds included (the spec and the event name them alike). */
const transferSeconds = (test: { timeSeconds: number; omitSeconds: number }) =>
  test.timeSeconds + test.omitSeconds;

export const iperf3Probe = definePlannedProbe({
  name: "iperf3",
  eventSchema: iperf3EventSchema,
  peer: "iperf3-server",
  peerSeconds: (event) => transferSeconds(event),
  plan: {
    specSchema: iperf3SpecSchema,
    // a plan file may give `parallel` as a list: a streams axis
    entrySchema: iperf3SpecSchema.extend({ parallel: oneOrList(eventShape.parallel.unwrap()).default(4) }),
    expandEntry: (entry) => expandList<Iperf3Spec>(entry, "parallel", (parallel) => ` -P ${parallel}`),
    label: (spec) =>
      `iperf3 ${spec.direction} -P ${spec.parallel} -t ${spec.timeSeconds}s${spec.intervalMs === undefined ? "" : ` ${spec.intervalMs} ms`}${spec.restSeconds ? ` after ${spec.restSeconds}s idle` : ""}`,
    names: (spec) => ({
      family: `iperf3 ${spec.direction}`,
      short: `iperf3 ${directionShort[spec.direction]} -P${spec.parallel}`,
    }),
    buildEvent: (spec, context) => ({
      probe: "iperf3" as const,
      ...iperf3Peer(context),
      timeSeconds: spec.timeSeconds,
      parallel: spec.parallel,
      reverse: spec.direction === "download",
      bidir: spec.direction === "bidir",
      omitSeconds: spec.omitSeconds,
      ...(spec.intervalMs !== undefined ? { intervalMs: spec.intervalMs } : {}),
      ...(spec.restSeconds ? { restSeconds: spec.restSeconds } : {}),
    }),
    estimate: (spec, bytesPerSecond) => ({
      seconds: (spec.restSeconds ?? 0) + transferSeconds(spec),
      serverBytes: bytesPerSecond * transferSeconds(spec) * directionCount(spec),
    }),
    directions: (spec) => (spec.direction === "bidir" ? ["upload", "download"] : [spec.direction]),
    movesData: true,
    streams: {
      parameter: "parallel",
      connections: (spec, count) => count * directionCount(spec),
      sweepLabel: (spec) => `iperf3 ${spec.direction} -t ${spec.timeSeconds}s`,
    },
    testObjectBytes: () => null,
    transfer: (spec) => ({
      seconds: transferSeconds(spec),
      connections: spec.parallel * directionCount(spec),
    }),
  },
});
