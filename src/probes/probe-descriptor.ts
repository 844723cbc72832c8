import type { z } from "zod";
import type { EventContext } from "./event-peers.js";

/**
 * Everything the rest of the code knows about one probe, in one object: its event and plan
 * schemas, how the runner builds its event, its label, names, duration and bottleneck figures.
 * Each probe's folder exports one (`<name>-probe.ts`); `registry.ts` lists them all, and every
 * layer above reads a probe's facts from there instead of testing its name.
 */

/** Which peer a probe measures against: it decides server ports, server CPU and per-request caps. */
export type ProbePeer = "iperf3-server" | "s3" | null;

export type TransferDirection = "upload" | "download";

/** The streams axis of a probe: the parameter that counts parallel connections. */
export interface StreamsAxis<Spec> {
  parameter: string;
  /** TCP connections of the whole transfer when the parameter is `count` (bidir: both directions). */
  connections(spec: Spec, count: number): number;
  /** The label without the stream count, e.g. "iperf3 upload -t 10s" (the spec lacks the parameter). */
  sweepLabel(spec: Partial<Spec>): string;
}

/** What a probe in a plan adds to the descriptor: the plan side, all pure. */
export interface PlannedProbe<Spec, Entry, EventInput> {
  /** One probe of an expanded plan (strict, `kind` = the probe's name). */
  specSchema: z.ZodType<Spec>;
  /** What a plan file may write for it (e.g. a list of stream counts); expandEntry makes specs of it. */
  entrySchema: z.ZodType<Entry>;
  expandEntry(entry: Entry): Spec[];
  /** The generated label, e.g. "iperf3 upload -P 4 -t 10s". */
  label(spec: Spec): string;
  /** Short names for narrow places: `family` groups the variants of one question, `short` tells rows apart. */
  names(spec: Spec): { family: string; short: string };
  /** Throws MissingPeerError when the target lacks the peer the probe needs. */
  buildEvent(spec: Spec, context: EventContext): EventInput;
  /**
   * Rough upper estimate at a transfer rate: the seconds the probe itself runs (the invocation's
   * own start and hand-back, INVOCATION_OVERHEAD_SECONDS, is added once by the run estimate) and
   * the bytes it moves through the iperf3 server (0 for other peers).
   */
  estimate(spec: Spec, bytesPerSecond: number): { seconds: number; serverBytes: number };
  /** The directions whose quota limits the transfer (none for probes that move no data). */
  directions(spec: Spec): readonly TransferDirection[];
  /** False for probes that move no data (info): they get no rate, curve or verdict. */
  movesData: boolean;
  streams: StreamsAxis<Spec> | null;
  /** Size of the test object the probe reads, bytes; null when it needs none. */
  testObjectBytes(spec: Spec): number | null;
  /**
   * The one transfer an invocation makes, for the check that it outlasts the burst: its bytes (a
   * sized transfer) or its seconds (a timed one), and its TCP connections (both directions of a
   * bidirectional test); null for probes that make no single transfer (info, latency, bucket).
   */
  transfer(spec: Spec): TransferShape | null;
}

export type TransferShape =
  | { bytes: number; seconds?: undefined; connections: number }
  | { seconds: number; bytes?: undefined; connections: number };

export interface ProbeDescriptor<EventSchema extends z.ZodType = z.ZodType, Planned = null> {
  name: z.output<EventSchema> extends { probe: infer Name } ? Name : never;
  eventSchema: EventSchema;
  peer: ProbePeer;
  /** How long an event keeps its peer busy, seconds (probes whose peer has a time-to-live: iperf3). */
  peerSeconds?: (event: z.output<EventSchema>) => number;
  plan: Planned;
}

/** Names a probe's descriptor with its types inferred (the callbacks see the probe's own spec and event). */
export function defineProbe<EventSchema extends z.ZodType>(
  descriptor: ProbeDescriptor<EventSchema, null>,
): ProbeDescriptor<EventSchema, null> {
  return descriptor;
}

export function definePlannedProbe<
  EventSchema extends z.ZodType,
  SpecSchema extends z.ZodType,
  EntrySchema extends z.ZodType,
>(
  descriptor: Omit<ProbeDescriptor<EventSchema>, "plan"> & {
    plan: PlannedProbe<z.output<SpecSchema>, z.output<EntrySchema>, z.input<EventSchema>> & {
      specSchema: SpecSchema;
      entrySchema: EntrySchema;
    };
  },
): typeof descriptor {
  return descriptor;
}
