import type { ResultRecord } from "./result-record.js";

/**
 * Reads the fields schemaVersion 2 added to a record (`sent`, `received`, `wholeSeconds`)
 * defensively: schemaVersion-1 records lack them, and a malformed value reads as absent.
 */

export interface TransferSide {
  bytes: number;
  seconds: number;
  bitsPerSecond: number;
  /** Sender side only (iperf3 sum_sent.retransmits); null when not reported. */
  retransmits: number | null;
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

function side(value: unknown): TransferSide | null {
  if (value === null || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (!finite(v.bytes) || !finite(v.seconds) || !finite(v.bitsPerSecond)) return null;
  return {
    bytes: v.bytes,
    seconds: v.seconds,
    bitsPerSecond: v.bitsPerSecond,
    retransmits: finite(v.retransmits) ? v.retransmits : null,
  };
}

const field = (record: ResultRecord, name: string): unknown =>
  (record as unknown as Record<string, unknown>)[name];

/** iperf3 end.sum_sent (the seed's headline for upload); s3-put: bytes sent. */
export function sentSide(record: ResultRecord): TransferSide | null {
  return side(field(record, "sent"));
}

/** iperf3 end.sum_received. */
export function receivedSide(record: ResultRecord): TransferSide | null {
  return side(field(record, "received"));
}

/** s3-get: the whole download as the seed timed it (client and credential set-up, HEAD, transfer), seconds. */
export function wholeDownloadSeconds(record: ResultRecord): number | null {
  const value = field(record, "wholeSeconds");
  return finite(value) && value > 0 ? value : null;
}
