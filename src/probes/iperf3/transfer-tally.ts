import type { IntervalSampler } from "../interval-sampler.js";

/**
 * Test-wide byte counters shared by all data streams of one test. Kept to plain fields and
 * one method per direction because they run on every chunk (the hot path). The client changes
 * its state only through the methods below (start, omit end, stop).
 */
export class TransferTally {
  private countingNow = false;
  /** During the omit period the byte limit is not checked yet (as in C iperf3). */
  private omitting = false;
  private sent = 0;
  private received = 0;
  /** Bytes the sending streams were allowed to write (taken or still with Node); >= sent. */
  private granted = 0;
  /** Counts at the end of the omit period; the byte limit applies to what moved after it. */
  private sentAtOmit = 0;
  private receivedAtOmit = 0;
  /** -n: end the test once this many bytes were sent or received (0 = no limit). */
  private byteLimit = 0;

  constructor(
    private readonly onLimitReached: () => void,
    /** A data stream failed while the test needed it. */
    readonly fail: (error: Error) => void,
    /**
     * Our own samples of the measured direction(s). A stream carries one direction only, so
     * counting both sent and received gives the upload, the download, or bidir's sum.
     */
    private readonly sampler: IntervalSampler,
  ) {}

  /** True from TEST_START until TEST_END is decided; bytes moved outside are not counted. */
  get counting(): boolean {
    return this.countingNow;
  }

  /**
   * How much of a `bytes` write a sending stream may still make under the byte limit (0: stop).
   * The limit is the test's total over all streams, so every stream asks here before each
   * write; without it a stream's burst of writes ran past the limit before the first write
   * was counted (1 MiB asked, 2 MiB sent; 8 MiB with four streams).
   */
  allowance(bytes: number): number {
    if (!this.countingNow) return 0;
    const remaining =
      this.byteLimit > 0 && !this.omitting ? this.sentAtOmit + this.byteLimit - this.granted : bytes;
    const allowed = Math.max(0, Math.min(bytes, remaining));
    this.granted += allowed;
    return allowed;
  }

  /** TEST_START: count from now; the byte limit waits for the omit end when there is one. */
  start(byteLimit: number, omitting: boolean): void {
    this.countingNow = true;
    this.byteLimit = byteLimit;
    this.omitting = omitting;
  }

  /** End of -O: the byte limit counts from here. */
  endOmit(): void {
    this.sentAtOmit = this.sent;
    this.receivedAtOmit = this.received;
    this.omitting = false;
  }

  /** TEST_END decided: nothing more counts. */
  stop(): void {
    this.countingNow = false;
  }

  addSent(bytes: number): void {
    this.sent += bytes;
    this.sampler.add(bytes);
    if (this.byteLimit > 0 && !this.omitting && this.sent - this.sentAtOmit >= this.byteLimit) {
      this.onLimitReached();
    }
  }

  addReceived(bytes: number): void {
    this.received += bytes;
    this.sampler.add(bytes);
    if (this.byteLimit > 0 && !this.omitting && this.received - this.receivedAtOmit >= this.byteLimit) {
      this.onLimitReached();
    }
  }
}
