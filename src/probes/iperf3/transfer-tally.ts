import type { IntervalSampler } from "../interval-sampler.js";

/**
 * Test-wide byte counters shared by all data streams of one test. Kept to plain fields and
 * one method per direction because they run on every chunk (the hot path).
 */
export class TransferTally {
  /** True from TEST_START until TEST_END is decided; bytes moved outside are not counted. */
  counting = false;
  /** True during the omit period: the byte limit is not checked yet (as in C iperf3). */
  omitting = false;
  sent = 0;
  received = 0;
  /** Counts at the end of the omit period; the byte limit applies to what moved after it. */
  sentAtOmit = 0;
  receivedAtOmit = 0;
  /** -n: end the test once this many bytes were sent or received (0 = no limit). */
  byteLimit = 0;
  /** Our own 250 ms samples of the measured direction(s). */
  sampleSent: IntervalSampler | undefined;
  sampleReceived: IntervalSampler | undefined;

  constructor(
    private readonly onLimitReached: () => void,
    /** A data stream failed while the test needed it. */
    readonly fail: (error: Error) => void,
  ) {}

  addSent(bytes: number): void {
    this.sent += bytes;
    this.sampleSent?.add(bytes);
    if (this.byteLimit > 0 && !this.omitting && this.sent - this.sentAtOmit >= this.byteLimit) {
      this.onLimitReached();
    }
  }

  addReceived(bytes: number): void {
    this.received += bytes;
    this.sampleReceived?.add(bytes);
    if (this.byteLimit > 0 && !this.omitting && this.received - this.receivedAtOmit >= this.byteLimit) {
      this.onLimitReached();
    }
  }
}
