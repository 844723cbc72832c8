import {
  receivedSide,
  sentSide,
  wholeDownloadSeconds as wholeSecondsOf,
} from "../../src/results/record-sides.js";
import type { ResultRecord } from "../../src/results/result-record.js";

/**
 * The seed study's own definitions, read from a record through src/results/record-sides.ts
 * (CONTRACTS.md C2): iperf3's sender side (`sent`, end.sum_sent) and s3-get's whole download
 * (`wholeSeconds`: client set-up, HEAD, transfer). A record without them fails the test: a run of
 * this code writes schemaVersion 2, and a figure from any other definition would not be the study's.
 */
export type FigureBasis = "C2";

export function senderBitsPerSecond(record: ResultRecord): { value: number; basis: FigureBasis } {
  const sent = sentSide(record);
  if (!sent) throw new Error(`record ${record.cellId}#${record.repetition}: no sent side (C2 sent)`);
  return { value: sent.bitsPerSecond, basis: "C2" };
}

/** iperf3's receiver side (end.sum_received): what crossed the link, without what the send buffers held. */
export function receivedBitsPerSecond(record: ResultRecord): number {
  const received = receivedSide(record);
  if (!received) throw new Error(`record ${record.cellId}#${record.repetition}: no received side`);
  return received.bitsPerSecond;
}

export function wholeDownloadSeconds(record: ResultRecord): { value: number; basis: FigureBasis } {
  const whole = wholeSecondsOf(record);
  if (whole === null) throw new Error(`record ${record.cellId}#${record.repetition}: no C2 wholeSeconds`);
  return { value: whole, basis: "C2" };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
