import type { PeerResults } from "./results-document.js";

/**
 * The `iperf3 -J` document our client produces, in the C client's shape (protocol doc 4.5
 * and 5). Fields Node cannot measure (TCP_INFO: cwnd, rtt, per-stream retransmits of our
 * own sends, socket buffer sizes, MSS) are left out, as the C client does on a platform
 * without TCP_INFO.
 */
/** What every interval and every `end` entry reports: a span (seconds) and the bytes moved in it. */
interface JsonSpan {
  socket?: number;
  start: number;
  end: number;
  seconds: number;
  bytes: number;
  bits_per_second: number;
  sender: boolean;
}

export interface JsonInterval extends JsonSpan {
  omitted: boolean;
}

export interface JsonIntervalEntry {
  streams: JsonInterval[];
  sum: Omit<JsonInterval, "socket">;
  sum_bidir_reverse?: Omit<JsonInterval, "socket">;
}

export interface JsonEndSide extends JsonSpan {
  retransmits?: number;
  max_snd_cwnd?: number;
  max_snd_wnd?: number;
  max_rtt?: number;
  min_rtt?: number;
  mean_rtt?: number;
}

export interface Iperf3JsonReport {
  start: {
    connected: {
      socket: number;
      local_host: string;
      local_port: number;
      remote_host: string;
      remote_port: number;
    }[];
    version: string;
    system_info: string;
    timestamp: { time: string; timesecs: number; timemillisecs: number };
    connecting_to: { host: string; port: number };
    cookie: string;
    target_bitrate: number;
    fq_rate: number;
    test_start: {
      protocol: "TCP";
      num_streams: number;
      blksize: number;
      omit: number;
      duration: number;
      bytes: number;
      blocks: number;
      reverse: 0 | 1;
      tos: number;
      target_bitrate: number;
      bidir: 0 | 1;
      fqrate: number;
      interval: number;
    };
  };
  intervals: JsonIntervalEntry[];
  end: {
    streams: { sender: JsonEndSide; receiver: JsonEndSide }[];
    sum_sent: JsonEndSide;
    sum_received: JsonEndSide;
    sum_sent_bidir_reverse?: JsonEndSide;
    sum_received_bidir_reverse?: JsonEndSide;
    cpu_utilization_percent: {
      host_total: number;
      host_user: number;
      host_system: number;
      remote_total: number;
      remote_user: number;
      remote_system: number;
    };
    sender_tcp_congestion?: string;
    receiver_tcp_congestion?: string;
  };
  server_output_text?: string;
  server_output_json?: unknown;
}

/** Seconds with microsecond resolution, as the C client prints them. */
export function microseconds(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}

export function rate(bytes: number, seconds: number): number {
  return seconds > 0 ? (bytes * 8) / seconds : 0;
}

export interface IntervalStreamBytes {
  socket: number;
  localSends: boolean;
  bytes: number;
}

/**
 * One `intervals[]` entry. Times are seconds from the start mark; `seconds` is stored in
 * single precision like the C client's float. Returns undefined for an interval the C client
 * drops: shorter than 10 % of the reporting interval and with no bytes moved.
 */
export function buildIntervalEntry(input: {
  startSeconds: number;
  endSeconds: number;
  reportIntervalSeconds: number;
  omitted: boolean;
  bidir: boolean;
  streams: IntervalStreamBytes[];
}): JsonIntervalEntry | undefined {
  const start = microseconds(input.startSeconds);
  const end = microseconds(input.endSeconds);
  const seconds = Math.fround(input.endSeconds - input.startSeconds);
  const total = input.streams.reduce((sum, stream) => sum + stream.bytes, 0);
  if (seconds < input.reportIntervalSeconds * 0.1 && total === 0) return undefined;
  const streams: JsonInterval[] = input.streams.map((stream) => ({
    socket: stream.socket,
    start,
    end,
    seconds,
    bytes: stream.bytes,
    bits_per_second: rate(stream.bytes, seconds),
    omitted: input.omitted,
    sender: stream.localSends,
  }));
  const sumOf = (localSends: boolean) => {
    const bytes = input.streams
      .filter((stream) => stream.localSends === localSends)
      .reduce((sum, stream) => sum + stream.bytes, 0);
    return {
      start,
      end,
      seconds,
      bytes,
      bits_per_second: rate(bytes, seconds),
      omitted: input.omitted,
      sender: localSends,
    };
  };
  const firstSends = input.streams[0]?.localSends ?? true;
  const entry: JsonIntervalEntry = { streams, sum: sumOf(firstSends) };
  if (input.bidir) entry.sum_bidir_reverse = sumOf(false);
  return entry;
}

/** Pseudo file-descriptor numbers for `socket` fields, as the C client shows them (5, 7, 9, ...). */
export function socketNumber(index: number): number {
  return 5 + 2 * index;
}

export interface StartInput {
  /** Each stream's addresses, in creation order. */
  connected: Array<{ localHost: string; localPort: number; remoteHost: string; remotePort: number }>;
  version: string;
  systemInfo: string;
  /** When the test began (the control connection). */
  startedAt: Date;
  host: string;
  port: number;
  cookie: string;
  parallel: number;
  blockBytes: number;
  omitSeconds: number;
  timeSeconds: number;
  byteLimit: number;
  reverse: boolean;
  bidir: boolean;
  reportIntervalSeconds: number;
}

/** `start` as the C client writes it (protocol doc 4.5): connections, timestamp, the test's parameters. */
export function buildStart(input: StartInput): Iperf3JsonReport["start"] {
  return {
    connected: input.connected.map((address, index) => ({
      socket: socketNumber(index),
      local_host: address.localHost,
      local_port: address.localPort,
      remote_host: address.remoteHost,
      remote_port: address.remotePort,
    })),
    version: input.version,
    system_info: input.systemInfo,
    timestamp: {
      time: input.startedAt.toUTCString(),
      timesecs: Math.floor(input.startedAt.getTime() / 1000),
      timemillisecs: input.startedAt.getTime(),
    },
    connecting_to: { host: input.host, port: input.port },
    cookie: input.cookie,
    target_bitrate: 0,
    fq_rate: 0,
    test_start: {
      protocol: "TCP",
      num_streams: input.parallel,
      blksize: input.blockBytes,
      omit: input.omitSeconds,
      duration: input.timeSeconds,
      bytes: input.byteLimit,
      blocks: 0,
      reverse: input.reverse ? 1 : 0,
      tos: 0,
      target_bitrate: 0,
      bidir: input.bidir ? 1 : 0,
      fqrate: 0,
      interval: input.reportIntervalSeconds,
    },
  };
}

export interface EndStreamInput {
  id: number;
  socket: number;
  localSends: boolean;
  /** Bytes this side moved on the stream after the omit period. */
  localBytes: number;
}

/**
 * `end` by the C client's rules (protocol doc 4.5): durations come from the first stream
 * (ours and the peer's), bytes from whichever side sent or received, and both durations
 * are reused for every stream and every sum.
 */
export function buildEnd(input: {
  streams: EndStreamInput[];
  localSeconds: number;
  peer: PeerResults;
  bidir: boolean;
  cpuPercent: { total: number; user: number; system: number };
  /** Retransmits of our own sending direction from /proc/net/snmp (namespace-wide), null if unknown. */
  localSentRetransmits: number | null;
}): Iperf3JsonReport["end"] {
  const { peer } = input;
  const first = input.streams[0];
  if (!first) throw new Error("buildEnd: no streams");
  const localDur = input.localSeconds;
  const firstPeer = peer.streams.get(first.id);
  const remoteDur =
    firstPeer?.startTime !== undefined && firstPeer.endTime !== undefined
      ? firstPeer.endTime - firstPeer.startTime
      : localDur;
  const senderTime = microseconds(first.localSends ? localDur : remoteDur);
  const receiverTime = microseconds(first.localSends ? remoteDur : localDur);
  const peerHasRetransmits = peer.senderHasRetransmits === 1;

  const perStream = input.streams.map((stream) => {
    const peerBytes = peer.streams.get(stream.id)?.bytes ?? 0;
    const peerRetransmits = peer.streams.get(stream.id)?.retransmits ?? -1;
    const sentBytes = stream.localSends ? stream.localBytes : peerBytes;
    const receivedBytes = stream.localSends ? peerBytes : stream.localBytes;
    // the server sent and measured retransmits; we have no TCP_INFO, so the max/min are 0 as in C
    const peerSenderFields =
      !stream.localSends && peerHasRetransmits
        ? {
            retransmits: Math.max(0, peerRetransmits),
            max_snd_cwnd: 0,
            max_snd_wnd: 0,
            max_rtt: 0,
            min_rtt: 0,
            mean_rtt: 0,
          }
        : {};
    const sender: JsonEndSide = {
      socket: stream.socket,
      start: 0,
      end: senderTime,
      seconds: senderTime,
      bytes: sentBytes,
      bits_per_second: rate(sentBytes, senderTime),
      ...peerSenderFields,
      sender: stream.localSends,
    };
    const receiver: JsonEndSide = {
      socket: stream.socket,
      start: 0,
      end: receiverTime,
      seconds: microseconds(localDur),
      bytes: receivedBytes,
      bits_per_second: rate(receivedBytes, receiverTime),
      sender: stream.localSends,
    };
    return { localSends: stream.localSends, sentBytes, receivedBytes, peerRetransmits, sender, receiver };
  });

  const sums = (localSends: boolean) => {
    const group = perStream.filter((stream) => stream.localSends === localSends);
    const sent = group.reduce((sum, stream) => sum + stream.sentBytes, 0);
    const received = group.reduce((sum, stream) => sum + stream.receivedBytes, 0);
    // our own direction: the C client would need TCP_INFO; we report the namespace's RetransSegs delta
    const retransmits =
      localSends && input.localSentRetransmits !== null
        ? { retransmits: input.localSentRetransmits }
        : !localSends && peerHasRetransmits
          ? { retransmits: group.reduce((sum, stream) => sum + Math.max(0, stream.peerRetransmits), 0) }
          : {};
    const sumSent: JsonEndSide = {
      start: 0,
      end: senderTime,
      seconds: senderTime,
      bytes: sent,
      bits_per_second: rate(sent, senderTime),
      ...retransmits,
      sender: localSends,
    };
    const sumReceived: JsonEndSide = {
      start: 0,
      end: receiverTime,
      seconds: receiverTime,
      bytes: received,
      bits_per_second: rate(received, receiverTime),
      sender: localSends,
    };
    return { sumSent, sumReceived };
  };

  const main = sums(first.localSends);
  const end: Iperf3JsonReport["end"] = {
    streams: perStream.map(({ sender, receiver }) => ({ sender, receiver })),
    sum_sent: main.sumSent,
    sum_received: main.sumReceived,
    cpu_utilization_percent: {
      host_total: input.cpuPercent.total,
      host_user: input.cpuPercent.user,
      host_system: input.cpuPercent.system,
      remote_total: peer.cpuUtilTotal,
      remote_user: peer.cpuUtilUser,
      remote_system: peer.cpuUtilSystem,
    },
  };
  if (input.bidir) {
    const reverse = sums(false);
    end.sum_sent_bidir_reverse = reverse.sumSent;
    end.sum_received_bidir_reverse = reverse.sumReceived;
  }
  // the C client names the server the sender in reverse and in bidir, the receiver in normal mode
  if (peer.congestionUsed !== undefined) {
    if (first.localSends && !input.bidir) end.receiver_tcp_congestion = peer.congestionUsed;
    else end.sender_tcp_congestion = peer.congestionUsed;
  }
  return end;
}
