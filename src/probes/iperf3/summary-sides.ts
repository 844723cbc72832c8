import { bitsPerSecond, type Iperf3Breakdown, type ReceivedSide, type SentSide } from "../probe-summary.js";
import type { Iperf3JsonReport, JsonEndSide } from "./json-report.js";

/** At most this many interval sums stay in a record (about 80 bytes each: well under 16 KB). */
export const MAX_RECORD_INTERVALS = 150;

/**
 * Both sides of an iperf3 test as the -J document's `end` states them: sum_sent (the seed
 * study's figure) and sum_received, each over both directions in bidir.
 */
export function endSides(end: Iperf3JsonReport["end"]): { sent: SentSide; received: ReceivedSide } {
  const sentSides = [end.sum_sent, end.sum_sent_bidir_reverse].filter(isSide);
  const receivedSides = [end.sum_received, end.sum_received_bidir_reverse].filter(isSide);
  const sentBytes = sentSides.reduce((sum, side) => sum + side.bytes, 0);
  const receivedBytes = receivedSides.reduce((sum, side) => sum + side.bytes, 0);
  const retransmitCounts = sentSides.map((side) => side.retransmits).filter((n) => n !== undefined);
  return {
    sent: {
      bytes: sentBytes,
      seconds: end.sum_sent.seconds,
      bitsPerSecond: bitsPerSecond(sentBytes, end.sum_sent.seconds),
      retransmits: retransmitCounts.length > 0 ? retransmitCounts.reduce((sum, n) => sum + n, 0) : null,
    },
    received: {
      bytes: receivedBytes,
      seconds: end.sum_received.seconds,
      bitsPerSecond: bitsPerSecond(receivedBytes, end.sum_received.seconds),
    },
  };
}

/**
 * The parts of the -J document from which sum_sent and sum_received can be recomputed:
 * per-stream sums of both sides, and the interval sums of the measured (not omitted) period.
 * A long test with short report intervals has its neighbouring intervals merged (bytes add,
 * spans join) until at most MAX_RECORD_INTERVALS remain, so the record stays small.
 */
export function compactBreakdown(report: Iperf3JsonReport): Iperf3Breakdown {
  const socketIds = new Map(report.start.connected.map((connection, index) => [connection.socket, index]));
  const streams = report.end.streams.map((stream, index) => ({
    id: streamIdOf(stream.sender.socket, socketIds, index),
    sent: { bytes: stream.sender.bytes, seconds: stream.sender.seconds },
    received: { bytes: stream.receiver.bytes, seconds: stream.receiver.seconds },
  }));
  let intervals: Iperf3Breakdown["intervals"] = [];
  for (const entry of report.intervals) {
    for (const sum of [entry.sum, entry.sum_bidir_reverse]) {
      if (!sum || sum.omitted) continue;
      intervals.push({
        start: sum.start,
        end: sum.end,
        bytes: sum.bytes,
        bitsPerSecond: sum.bits_per_second,
        sender: sum.sender,
      });
    }
  }
  while (intervals.length > MAX_RECORD_INTERVALS) intervals = mergePairs(intervals);
  return { streams, intervals };
}

/** iperf3 numbers streams 1, 3, 4, 5, ... in creation order (2 is never used). */
function streamIdOf(socket: number | undefined, socketIds: Map<number, number>, fallback: number): number {
  const index = socket === undefined ? fallback : (socketIds.get(socket) ?? fallback);
  return index === 0 ? 1 : index + 2;
}

function mergePairs(intervals: Iperf3Breakdown["intervals"]): Iperf3Breakdown["intervals"] {
  const merged: Iperf3Breakdown["intervals"] = [];
  // merge within each direction, so the sender flag of a merged span stays true to its bytes
  for (const sender of [true, false]) {
    const side = intervals.filter((interval) => interval.sender === sender);
    for (let i = 0; i < side.length; i += 2) {
      const a = side[i] as Iperf3Breakdown["intervals"][number];
      const b = side[i + 1];
      if (!b) {
        merged.push(a);
        continue;
      }
      const bytes = a.bytes + b.bytes;
      merged.push({
        start: a.start,
        end: b.end,
        bytes,
        bitsPerSecond: bitsPerSecond(bytes, b.end - a.start),
        sender,
      });
    }
  }
  return merged.sort((x, y) => x.start - y.start || Number(y.sender) - Number(x.sender));
}

function isSide(side: JsonEndSide | undefined): side is JsonEndSide {
  return side !== undefined;
}
