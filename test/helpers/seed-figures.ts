import type { ResultRecord } from "../../src/results/result-record.js";

/**
 * The seed study's own definitions, read from a record: iperf3's sender side (end.sum_sent) and
 * s3-get's whole download (client set-up, HEAD, transfer). Records of schemaVersion 2 carry them
 * (CONTRACTS.md C2: `sent`, `wholeSeconds`) and must: a version-2 record without them fails.
 * Version-1 records (before the probes-timing change) give the closest figures they have: the
 * client's own sent-byte samples over their measured time, and the transfer plus the HEAD.
 */
export type FigureBasis = "C2" | "schemaVersion 1 fallback";

const field = (record: ResultRecord, name: string): unknown =>
  (record as unknown as Record<string, unknown>)[name];

function isVersion2(record: ResultRecord): boolean {
  return (record as { schemaVersion: number }).schemaVersion >= 2;
}

export function senderBitsPerSecond(record: ResultRecord): { value: number; basis: FigureBasis } {
  if (isVersion2(record)) {
    const sent = field(record, "sent") as { bitsPerSecond?: unknown } | null;
    if (!sent || typeof sent.bitsPerSecond !== "number")
      throw new Error(
        `record ${record.cellId}#${record.repetition}: schemaVersion 2 without sent.bitsPerSecond`,
      );
    return { value: sent.bitsPerSecond, basis: "C2" };
  }
  const samples = record.samples as unknown as {
    intervalSeconds: number;
    bytes: number[];
    lastIntervalSeconds?: number;
  } | null;
  if (!samples || samples.bytes.length === 0) throw new Error(`record ${record.cellId}: no samples`);
  const bytes = samples.bytes.reduce((a, b) => a + b, 0);
  const seconds =
    samples.intervalSeconds * (samples.bytes.length - 1) +
    (samples.lastIntervalSeconds ?? samples.intervalSeconds);
  return { value: (bytes * 8) / seconds, basis: "schemaVersion 1 fallback" };
}

export function wholeDownloadSeconds(record: ResultRecord): { value: number; basis: FigureBasis } {
  if (isVersion2(record)) {
    const whole = field(record, "wholeSeconds");
    if (typeof whole !== "number")
      throw new Error(`record ${record.cellId}#${record.repetition}: schemaVersion 2 without wholeSeconds`);
    return { value: whole, basis: "C2" };
  }
  const head = (record.detail as { headSeconds?: number } | null)?.headSeconds ?? 0;
  return { value: (record.seconds ?? Number.NaN) + head, basis: "schemaVersion 1 fallback" };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
