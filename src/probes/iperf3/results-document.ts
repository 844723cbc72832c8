import { ProbeError } from "../probe-error.js";
import { normalizeCount } from "./protocol.js";

/** One stream of a peer's results (protocol doc 4.1), with 3.12's huge -1 normalised. */
export interface PeerStreamResult {
  id: number;
  bytes: number;
  /** -1 when unknown or not the sender. */
  retransmits: number;
  startTime: number | undefined;
  endTime: number | undefined;
}

export interface PeerResults {
  cpuUtilTotal: number;
  cpuUtilUser: number;
  cpuUtilSystem: number;
  /** -1: the peer only receives; 0: no retransmit data; 1: per-stream retransmits are real. */
  senderHasRetransmits: number;
  congestionUsed: string | undefined;
  streams: Map<number, PeerStreamResult>;
  serverOutputText: string | undefined;
  serverOutputJson: unknown;
}

/** What our side reports to the server at EXCHANGE_RESULTS (protocol doc 4.4). */
export interface LocalStreamReport {
  id: number;
  bytes: number;
  seconds: number;
}

/** The fields of a results document, already sanitised by the side that sends it. */
export interface ResultsDocumentFields {
  cpuUtilTotal: number;
  cpuUtilUser: number;
  cpuUtilSystem: number;
  senderHasRetransmits: number;
  streams: { id: number; bytes: number; endTimeSeconds: number }[];
}

/**
 * The results JSON each side sends at EXCHANGE_RESULTS (protocol doc 4.1), in the one shape
 * both our client and our server use. Node has no TCP_INFO, so every per-stream retransmit count
 * is -1; TCP has no jitter, errors or packets, so those are 0.
 */
export function buildResultsDocument(fields: ResultsDocumentFields): Record<string, unknown> {
  return {
    cpu_util_total: fields.cpuUtilTotal,
    cpu_util_user: fields.cpuUtilUser,
    cpu_util_system: fields.cpuUtilSystem,
    sender_has_retransmits: fields.senderHasRetransmits,
    streams: fields.streams.map((stream) => ({
      id: stream.id,
      bytes: stream.bytes,
      retransmits: -1,
      jitter: 0,
      errors: 0,
      omitted_errors: 0,
      packets: 0,
      omitted_packets: 0,
      start_time: 0,
      end_time: stream.endTimeSeconds,
    })),
  };
}

export function buildClientResults(input: {
  cpuPercent: { total: number; user: number; system: number };
  /** -1 when we only receive (reverse), 0 otherwise: Node has no per-stream TCP_INFO. */
  senderHasRetransmits: number;
  streams: LocalStreamReport[];
}): Record<string, unknown> {
  const finite = (value: number) => (Number.isFinite(value) ? value : 0);
  return buildResultsDocument({
    cpuUtilTotal: finite(input.cpuPercent.total),
    cpuUtilUser: finite(input.cpuPercent.user),
    cpuUtilSystem: finite(input.cpuPercent.system),
    senderHasRetransmits: input.senderHasRetransmits,
    streams: input.streams.map((stream) => ({
      id: stream.id,
      bytes: stream.bytes,
      endTimeSeconds: finite(stream.seconds),
    })),
  });
}

/** Validates the server's results document; anything malformed is a protocol error. */
export function parsePeerResults(document: unknown, expectedIds: number[]): PeerResults {
  const bad = (what: string) => new ProbeError("protocol", `server results: ${what}`);
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw bad("not a JSON object");
  }
  const doc = document as Record<string, unknown>;
  if (!Array.isArray(doc.streams)) throw bad("no `streams` array");
  const streams = new Map<number, PeerStreamResult>();
  for (const entry of doc.streams) {
    if (typeof entry !== "object" || entry === null) throw bad("a stream entry is not an object");
    const stream = entry as Record<string, unknown>;
    if (typeof stream.id !== "number" || typeof stream.bytes !== "number" || !(stream.bytes >= 0)) {
      throw bad("a stream entry lacks a numeric `id` or `bytes`");
    }
    streams.set(stream.id, {
      id: stream.id,
      bytes: stream.bytes,
      retransmits: normalizeCount(stream.retransmits),
      startTime: typeof stream.start_time === "number" ? stream.start_time : undefined,
      endTime: typeof stream.end_time === "number" ? stream.end_time : undefined,
    });
  }
  for (const id of expectedIds) {
    if (!streams.has(id)) throw bad(`no entry for stream id ${id}`);
  }
  const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
  return {
    cpuUtilTotal: number(doc.cpu_util_total),
    cpuUtilUser: number(doc.cpu_util_user),
    cpuUtilSystem: number(doc.cpu_util_system),
    senderHasRetransmits: normalizeCount(doc.sender_has_retransmits),
    congestionUsed: typeof doc.congestion_used === "string" ? doc.congestion_used : undefined,
    streams,
    serverOutputText: typeof doc.server_output_text === "string" ? doc.server_output_text : undefined,
    serverOutputJson: doc.server_output_json,
  };
}
