import { emptySamples, IntervalSampler, type IntervalSamples } from "../interval-sampler.js";
import { AcknowledgedTotal, UnacknowledgedBytes } from "../unacknowledged-bytes.js";
import type { ServerStream } from "./server-stream.js";

/**
 * The server's clock of one test, apart from its control loop as the client's IntervalClock is:
 * the start mark (TEST_START, then the omit end), the end mark (TEST_END), the process CPU
 * between them, and the server's own samples of every counted byte (received or sent: one
 * direction, or both in bidir). The streams only count; the clock reads them.
 */
export class ServerClock {
  private startMs = 0;
  private endMs = 0;
  /** TEST_START: the CPU share spans the whole test, omit period included, as the C server's does. */
  private wallStartMs = 0;
  private cpuStart = process.cpuUsage();
  private cpuUsedMicros = { user: 0, system: 0 };
  private readonly sampler: IntervalSampler;
  private sampled: IntervalSamples;
  /** The omit period's samples (-O), closed at its end; empty without one. */
  private omitSampled: IntervalSamples;
  /** The sending streams' bytes not yet acknowledged by the client. */
  private readonly unacknowledged = new UnacknowledgedBytes();
  private readonly acknowledged = new AcknowledgedTotal(
    this.unacknowledged,
    () => this.countedBytes(true),
    () => this.countedBytes(false),
  );

  constructor(
    private readonly streams: readonly ServerStream[],
    sampleIntervalMs: number,
  ) {
    // sent bytes count what crossed the link: what the kernel accepted minus what it still holds
    // unacknowledged (see UnacknowledgedBytes), so the first interval holds no send-buffer fill
    this.sampler = new IntervalSampler(sampleIntervalMs, this.acknowledged);
    this.sampled = emptySamples(sampleIntervalMs);
    this.omitSampled = emptySamples(sampleIntervalMs);
  }

  /** TEST_START: the streams have started; the measured period (or the omit period) begins. */
  start(startMs = performance.now()): void {
    this.startMs = startMs;
    this.wallStartMs = this.startMs;
    this.cpuStart = process.cpuUsage();
    for (const stream of this.streams) {
      const { localPort, remotePort, remoteAddress } = stream.socket;
      if (stream.sends) this.unacknowledged.track(localPort, remotePort, remoteAddress);
    }
    this.sampler.start(this.startMs);
  }

  /**
   * End of -O: the omit period's samples close (the server reports them as omitted, as the C
   * server does), `resetCounters` zeroes the streams' counts, and the measured period and its
   * samples start at the same moment.
   */
  endOmit(resetCounters: () => void): void {
    const nowMs = performance.now();
    this.omitSampled = this.sampler.stop(nowMs);
    resetCounters();
    this.startMs = nowMs;
    this.acknowledged.reset();
    this.sampler.start(nowMs);
  }

  /** TEST_END (or the test broke off): the streams have stopped counting; the measured period ends. */
  stop(): void {
    this.endMs = performance.now();
    this.sampled = this.sampler.stop(this.endMs);
    const cpu = process.cpuUsage(this.cpuStart);
    this.cpuUsedMicros = { user: cpu.user, system: cpu.system };
  }

  /** The counted bytes per interval (empty before TEST_END). */
  get samples(): IntervalSamples {
    return this.sampled;
  }

  /** What moved in the omit period, per interval (empty without -O). */
  get omittedSamples(): IntervalSamples {
    return this.omitSampled;
  }

  /** From the start mark to TEST_END. */
  get durationSeconds(): number {
    return Math.max(0, (this.endMs - this.startMs) / 1000);
  }

  /** Process CPU over the whole test and the wall time it spans, microseconds. */
  get cpu(): { userMicros: number; systemMicros: number; wallMicros: number } {
    return {
      userMicros: this.cpuUsedMicros.user,
      systemMicros: this.cpuUsedMicros.system,
      wallMicros: (this.endMs - this.wallStartMs) * 1000,
    };
  }

  /** What the sending streams (`sending`) or the receiving ones counted. */
  countedBytes(sending: boolean): number {
    let total = 0;
    for (const stream of this.streams) if (stream.sends === sending) total += stream.countedBytes;
    return total;
  }
}
