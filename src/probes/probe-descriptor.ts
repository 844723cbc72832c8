import { z } from "zod";
import type { Iperf3Auth } from "./iperf3/options.js";

/**
 * Everything the rest of the code knows about one probe, in one object: its event and plan
 * schemas, how the runner builds its event, its label, names, duration and bottleneck figures.
 * Each probe's folder exports one (`<name>-probe.ts`); `registry.ts` lists them all, and every
 * layer above reads a probe's facts from there instead of testing its name.
 */

/** The peers a platform offers the probes (what `Platform.endpoints()` returns). */
export interface ProbePeers {
  iperf3?: {
    host: string;
    /** One port per test that may run at once (one test at a time per server port). */
    ports: number[];
    /** Credentials for RSA authentication, handed to the agent; never logged or recorded. */
    auth?: Iperf3Auth;
  };
  s3?: {
    endpoint?: string;
    region: string;
    bucket: string;
    pathStyle: boolean;
    caPem?: string;
    /** Where s3-put may write (the platform's grant); default `lambda-netbench/put/`. */
    putKeyPrefix?: string;
  };
}

/** Which peer a probe measures against: it decides server ports, server CPU and per-request caps. */
export type ProbePeer = "iperf3-server" | "s3" | null;

/** What the runner resolved for one invocation before its event is built. */
export interface EventContext {
  /** Unique across runs, `<runId>/<cellId>-<repetition>`: names what an invocation writes. */
  invocationName: string;
  peers: ProbePeers;
  /** The iperf3 server port taken for this invocation (probes whose peer is iperf3). */
  iperf3Port?: number;
  /** The key of the test object (probes with `testObjectBytes`). */
  s3ObjectKey?: string;
}

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

/** The target lacks the peer a probe needs (the message goes into the record). */
export class MissingPeerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingPeerError";
  }
}

/** The iperf3 server of the context: host, the port taken and the credentials. */
export function iperf3Peer(context: EventContext): {
  host: string;
  port: number;
  auth?: NonNullable<ProbePeers["iperf3"]>["auth"];
} {
  const server = context.peers.iperf3;
  if (!server) throw new MissingPeerError("this target has no iperf3 server");
  if (context.iperf3Port === undefined) throw new Error("iperf3 port not assigned");
  return { host: server.host, port: context.iperf3Port, ...(server.auth ? { auth: server.auth } : {}) };
}

/** The S3 endpoint of the context, as an S3 probe's event carries it. */
export function s3Peer(context: EventContext): {
  endpoint?: string;
  region: string;
  bucket: string;
  pathStyle: boolean;
  caPem?: string;
} {
  const s3 = context.peers.s3;
  if (!s3) throw new MissingPeerError("this target has no S3 endpoint");
  return {
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    region: s3.region,
    bucket: s3.bucket,
    pathStyle: s3.pathStyle,
    ...(s3.caPem ? { caPem: s3.caPem } : {}),
  };
}

/** The S3 endpoint and the test object the run resolved for the cell, as a GET probe's event carries them. */
export function s3TestObjectPeer(context: EventContext): ReturnType<typeof s3Peer> & { key: string } {
  const peer = s3Peer(context);
  if (context.s3ObjectKey === undefined) throw new MissingPeerError("test object not resolved");
  return { ...peer, key: context.s3ObjectKey };
}

/** Fields every probe of a plan takes beside its own parameters. */
export const planRepetitionsSchema = z.number().int().min(1).max(1_000);
export const plannedProbeCommon = {
  /** Overrides the plan's repetitions for this probe (e.g. 1 for single-stream S3). */
  repetitions: planRepetitionsSchema.optional(),
  /** Free text shown in reports instead of the generated label. */
  label: z.string().min(1).max(60).optional(),
};

/**
 * A value, or a list of them: a list is an axis (like memory), one probe per value, in the order
 * given. Distinct values only, so each value is one cell.
 */
export function oneOrList<T extends z.ZodType>(single: T) {
  return z.union([
    single,
    z
      .array(single)
      .min(1, "at least one value")
      .refine((values) => new Set(values).size === values.length, "values must be distinct"),
  ]);
}

/**
 * One spec per value of a listed parameter; a single value stays the very same spec, so the
 * cell ids of plans without lists never change. A label gets the value appended (`suffix`), so
 * the cells of a sweep stay apart in reports.
 */
export function expandList<Spec>(
  entry: { label?: string | undefined },
  parameter: string,
  suffix: (value: string | number) => string,
): Spec[] {
  const values = (entry as Record<string, unknown>)[parameter];
  if (!Array.isArray(values)) return [entry as unknown as Spec];
  return values.map(
    (value) =>
      ({
        ...entry,
        [parameter]: value,
        ...(entry.label ? { label: `${entry.label}${suffix(value)}` } : {}),
      }) as unknown as Spec,
  );
}

/** Bytes in a MiB: the unit of every object, chunk and part size a plan gives. */
export const mebibyte = 1_048_576;
