import { emptySamples, IntervalSampler, type IntervalSamples } from "../interval-sampler.js";
import { AcknowledgedTotal, UnacknowledgedBytes } from "../unacknowledged-bytes.js";
import type { ClientStream } from "./client-stream.js";
import { buildIntervalEntry, type JsonIntervalEntry, socketNumber } from "./json-report.js";

function seconds(ns: bigint): number {
  return Number(ns) / 1e9;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * The client's clock of one test, as iperf3's reporter is apart from its control loop: the
 * start mark (TEST_START, then the omit end), the -J report intervals with their measured
 * spans, our own byte samples, and the end mark. It owns its counters: what each stream had
 * moved at the last report and at the omit end. The streams only count.
 */
export class IntervalClock {
  /** Our own samples of the measured direction(s); the tally feeds it. */
  readonly sampler: IntervalSampler;
  private readonly entries: JsonIntervalEntry[] = [];
  private streams: readonly ClientStream[] = [];
  private movedAtTick: number[] = [];
  /**
   * Per stream at the start mark: a sender's count, a receiver's bytes arrived (`countedNow`).
   * A receiving stream's bytes count from their arrival at its kernel, not from its reads:
   * what it read plus what the kernel holds unread. An agent starved of CPU handles TEST_START
   * late, after the server has sent for a while; what crossed before the mark then went into
   * the measured period's rate and its first sample as if it crossed after (20.31 Mbit/s read
   * on a tbf link carrying 19.13, in the stock-kernel VM). Those bytes are the test's (a
   * --bytes download counts them), so they stay in the bytes and the period is taken back by
   * the time they take at the rate the period measured (`measuredSeconds`).
   */
  private countedAtMark: number[] = [];
  /** Per stream at the end mark, the same. */
  private countedAtEnd: number[] = [];
  /** Per stream: what a receiver had when TEST_START was handled (0 after an omit period: those bytes were omitted). */
  private arrivedBeforeStart: number[] = [];
  private omitting = false;
  private startMarkNs = 0n;
  private lastTickNs = 0n;
  private endMarkNs = 0n;
  /** performance.now() at the start and the end of the measured period: when a caller's idle gap begins and ends. */
  private periodMs = { from: 0, to: 0 };
  private timer: NodeJS.Timeout | undefined;
  private sampled: IntervalSamples;
  private sampling = false;
  /**
   * What the sending streams' kernels hold unacknowledged. The streams count what the kernel
   * accepted (as C iperf3 counts write() results, and the -J intervals keep that); our samples
   * subtract what is still in the send buffers at every close, so they count what crossed the
   * link: without it the first interval carried the initial fill of the send buffers (12-19 %
   * over a 200 Mbit/s link). The last interval leaves out what was still unacknowledged at
   * TEST_END, so the samples add up to a little less than sum_sent.
   */
  private readonly unacknowledged = new UnacknowledgedBytes();
  /** Bytes across the link: what the streams moved minus what the send buffers hold unacknowledged. */
  private readonly acknowledged = new AcknowledgedTotal(
    this.unacknowledged,
    () => this.takenNow(true),
    () => this.takenNow(false),
  );
  /** Per stream: what its kernel had taken at TEST_START (null: count whole writes). */
  private takenAtStart: Array<number | null> = [];

  constructor(
    private readonly options: { reportIntervalSeconds: number; bidir: boolean; sampleIntervalMs: number },
  ) {
    // the tally adds what the streams moved; the running total adds the difference to what crossed the link
    this.sampler = new IntervalSampler(options.sampleIntervalMs, {
      read: (fresh) => this.acknowledged.read(fresh) - this.movedNow(),
      takenAtMs: () => this.acknowledged.takenAtMs(),
    });
    this.sampled = emptySamples(options.sampleIntervalMs);
  }

  /** TEST_START: the measured period (or the omit period before it) begins. */
  start(streams: readonly ClientStream[], omitting: boolean): void {
    this.streams = streams;
    this.acknowledged.reset();
    this.takenAtStart = streams.map((stream) => (stream.localSends ? stream.kernelTakenBytes : null));
    for (const stream of streams) {
      const { localPort, remotePort, remoteHost } = stream.address;
      this.unacknowledged.track(
        localPort,
        remotePort,
        remoteHost,
        stream.localSends ? "sending" : "receiving",
      );
    }
    this.movedAtTick = streams.map(() => 0);
    // the mark's time before its count, the end's after: a count taken late leaves bytes out, never in
    const now = process.hrtime.bigint();
    this.countedAtMark = this.countedNow();
    this.arrivedBeforeStart = omitting ? streams.map(() => 0) : this.countedAtMark;
    this.omitting = omitting;
    this.mark(now);
  }

  /** End of -O: omitted intervals close, the counts and the clock restart (the test's end timer does not). */
  endOmit(): void {
    const now = process.hrtime.bigint();
    this.closeInterval(now);
    this.countedAtMark = this.countedNow();
    this.arrivedBeforeStart = this.streams.map(() => 0);
    this.omitting = false;
    this.mark(now);
  }

  /** TEST_END: the last interval closes and the measured period ends. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.countedAtEnd = this.countedNow();
    const now = process.hrtime.bigint();
    this.closeInterval(now);
    this.endMarkNs = now;
    this.periodMs.to = performance.now();
    // no zero intervals while the results are exchanged
    if (this.sampling) this.sampled = this.sampler.stop();
    this.sampling = false;
  }

  /** A run that ends without TEST_END (failure, deadline): stop the timers. */
  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.sampling) this.sampler.stop();
    this.sampling = false;
  }

  get intervals(): JsonIntervalEntry[] {
    return this.entries;
  }

  get samples(): IntervalSamples {
    return this.sampled;
  }

  /** The measured period on performance.now()'s clock, milliseconds (`to` is 0 before TEST_END). */
  get measuredPeriodMs(): { from: number; to: number } {
    return { ...this.periodMs };
  }

  /**
   * A download's bytes that had arrived when TEST_START was handled: in the measured bytes, not
   * in the samples, which start at the mark (0 for a sender, and after an omit period).
   */
  get bytesBeforeStart(): number {
    return sum(this.arrivedBeforeStart);
  }

  /**
   * Length of the measured period: from the start mark to TEST_END; for a download, taken back
   * by the time what had arrived at TEST_START takes at the rate measured after it (so the rate
   * is what arrived in the marked period, and the bytes are all of the test's).
   */
  get measuredSeconds(): number {
    const markedSeconds = seconds(this.endMarkNs - this.startMarkNs);
    // bidir: the receiving side's period is the server's (by the C client's rules), this one the sender's
    if (this.streams.some((stream) => stream.localSends)) return markedSeconds;
    const before = sum(this.arrivedBeforeStart);
    const during = sum(this.countedAtEnd) - sum(this.countedAtMark);
    if (before > 0 && during > 0) return markedSeconds * ((before + during) / during);
    if (before === 0) return markedSeconds;
    // all of it arrived before the mark (a small --bytes download): no later rate to time it by,
    // so from the last cookie, before which no data can come (a rate no higher than the truth)
    let lastCookieNs = 0n;
    for (const stream of this.streams)
      if (stream.cookieSentNs > lastCookieNs) lastCookieNs = stream.cookieSentNs;
    return lastCookieNs > 0n ? seconds(this.endMarkNs - lastCookieNs) : markedSeconds;
  }

  /**
   * Bytes a stream moved in the measured period: a sender's count (what the kernel accepted), a
   * receiver's arrivals (its reads and its kernel's unread bytes, from mark to mark, and what it
   * had at TEST_START).
   */
  measuredBytes(index: number): number {
    const during = (this.countedAtEnd[index] ?? 0) - (this.countedAtMark[index] ?? 0);
    return during + (this.arrivedBeforeStart[index] ?? 0);
  }

  /**
   * Per stream, now: a sender's count; a receiver's reads (those before TEST_START's handling
   * too) plus what its kernel holds unread, from a fresh read of the table (reads only where
   * the table cannot be read).
   */
  private countedNow(): number[] {
    const receiving = this.streams.some((stream) => !stream.localSends);
    if (receiving) this.unacknowledged.read(true);
    const tableRead = this.unacknowledged.unreadBytes !== null;
    return this.streams.map((stream) => {
      if (stream.localSends) return stream.moved;
      const { localPort, remotePort } = stream.address;
      const unread = tableRead ? (this.unacknowledged.of(localPort, remotePort) ?? 0) : 0;
      return stream.bytesRead + unread;
    });
  }

  /**
   * What the streams moved, to the byte: a sending stream's bytes the kernel has taken since
   * TEST_START (whole writes only where Node's fields are missing), a receiving stream's reads;
   * the sending streams (`sending`) or the receiving ones.
   */
  private takenNow(sending: boolean): number {
    let moved = 0;
    for (const [index, stream] of this.streams.entries()) {
      if (stream.localSends !== sending) continue;
      if (!sending) {
        moved += stream.bytesRead;
        continue;
      }
      const start = this.takenAtStart[index];
      const taken = stream.kernelTakenBytes;
      moved += start !== null && start !== undefined && taken !== null ? taken - start : stream.moved;
    }
    return moved;
  }

  private movedNow(): number {
    let moved = 0;
    for (const stream of this.streams) moved += stream.moved;
    return moved;
  }

  private mark(now: bigint): void {
    this.startMarkNs = now;
    this.periodMs = { from: performance.now(), to: 0 };
    this.lastTickNs = now;
    // the samples cover the measured period only: they (re)start with it
    this.sampler.start();
    this.sampling = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(
      () => this.closeInterval(process.hrtime.bigint()),
      this.options.reportIntervalSeconds * 1000,
    );
  }

  private closeInterval(nowNs: bigint): void {
    const entry = buildIntervalEntry({
      startSeconds: seconds(this.lastTickNs - this.startMarkNs),
      endSeconds: seconds(nowNs - this.startMarkNs),
      reportIntervalSeconds: this.options.reportIntervalSeconds,
      omitted: this.omitting,
      bidir: this.options.bidir,
      streams: this.streams.map((stream, index) => {
        const bytes = stream.moved - (this.movedAtTick[index] ?? 0);
        this.movedAtTick[index] = stream.moved;
        return { socket: socketNumber(index), localSends: stream.localSends, bytes };
      }),
    });
    if (entry) this.entries.push(entry);
    this.lastTickNs = nowNs;
  }
}
