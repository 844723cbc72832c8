import type { Socket } from "node:net";
import { AverageRatePacer } from "./average-rate-pacer.js";
import { FlowPacer } from "./flow-pacer.js";
import { countReceivedBytes, type ReceivePath } from "./server-receive.js";

/**
 * Test-wide send limits (`num` / `blockcount`), shared by every stream the server sends on: the C
 * sender stops once the test's total crosses either limit (protocol doc 2.3).
 */
export class SendBudget {
  bytesSent = 0;
  blocksSent = 0;

  constructor(
    private readonly byteLimit: number,
    private readonly blockLimit: number,
  ) {}

  /** True while another block may go out; the caller then counts it with `spend`. */
  get open(): boolean {
    return (
      (this.byteLimit === 0 || this.bytesSent < this.byteLimit) &&
      (this.blockLimit === 0 || this.blocksSent < this.blockLimit)
    );
  }

  /** The omit reset clears the test-wide sent totals, as the C server does (section 8.3). */
  reset(): void {
    this.bytesSent = 0;
    this.blocksSent = 0;
  }
}

/** Writes before yielding to the event loop, so timers and the control socket are never starved. */
const WRITES_PER_TURN = 8;

/**
 * One data connection of a test. Receive streams count read lengths (reads land in one shared
 * buffer, see server-receive.ts); send streams write one reused block with backpressure. Counting only happens
 * while the session says so (TEST_RUNNING, reset at omit end).
 */
export class ServerStream {
  readonly socket: Socket;
  /** Every byte received, counted or not (for the idle watchdog). */
  rawReceivedBytes = 0;
  private counting = false;
  private receivedBytes = 0;
  private sending = false;
  private attemptedBytes = 0;
  private baselineSentBytes = 0;
  private pumpScheduled = false;
  /** Application pacing (`bandwidth` per stream), from the test's start mark; null without. */
  private ratePacer: AverageRatePacer | null = null;
  private failure: string | undefined;
  /** Sent-to-kernel count taken at TEST_END. */
  private frozenSent: number | undefined;
  /** The server's per-flow cap (the lab's `flowMegabitsPerSecond`); null for none. */
  private readonly flowPacer: FlowPacer | null;
  private readPauseTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: number,
    socket: Socket,
    /** True when the server writes on this stream (reverse, or the second half of bidir). */
    readonly sends: boolean,
    private readonly block: Buffer,
    private readonly budget: SendBudget,
    private readonly bandwidthBitsPerSecond: number,
    /** How received bytes are counted (the server's start-up self-test chose it). */
    receivePath: ReceivePath,
    /** The lab's per-flow cap on this stream, payload bits per second; null for none. */
    flowCapBitsPerSecond: number | null = null,
  ) {
    this.flowPacer = flowCapBitsPerSecond ? new FlowPacer(flowCapBitsPerSecond) : null;
    if (sends) {
      // the client writes nothing on a stream we send on; reading notices its close
      socket.on("data", () => {});
      socket.resume();
    } else {
      socket = countReceivedBytes(socket, this.onReceived, receivePath);
    }
    this.socket = socket;
    socket.on("drain", this.onDrain);
    socket.on("error", (error: Error) => {
      this.failure ??= error.message;
      this.sending = false;
    });
    socket.on("close", () => {
      this.sending = false;
    });
  }

  /** Why the stream broke, if it did. */
  get error(): string | undefined {
    return this.failure;
  }

  /** Bytes that count for the results: received while counting, or handed to the kernel since the omit mark. */
  get countedBytes(): number {
    return this.sends ? this.sentToKernelBytes() - this.baselineSentBytes : this.receivedBytes;
  }

  /**
   * TEST_RUNNING: count received bytes, start writing on send streams. Pacing counts from the
   * test's start mark, so a server descheduled before its first write catches up, as the C
   * sender's average-rate throttle does, and the test's rate is the one asked for.
   */
  start(startMs = performance.now()): void {
    this.counting = true;
    if (!this.sends) return;
    this.sending = true;
    if (this.bandwidthBitsPerSecond > 0)
      this.ratePacer = new AverageRatePacer(this.bandwidthBitsPerSecond, startMs, this.attemptedBytes);
    this.schedulePump();
  }

  /** Omit end: counters start again from here. */
  resetCounters(): void {
    this.receivedBytes = 0;
    this.baselineSentBytes = this.sentToKernelBytes();
  }

  /** TEST_END: freeze the counts and stop writing. */
  stop(): void {
    if (this.frozenSent === undefined) this.frozenSent = this.sentToKernelBytes();
    this.counting = false;
    this.sending = false;
  }

  destroy(): void {
    this.sending = false;
    clearTimeout(this.readPauseTimer);
    this.socket.destroy();
  }

  private sentToKernelBytes(): number {
    if (this.frozenSent !== undefined) return this.frozenSent;
    // Node counts a write as done once libuv handed it to the kernel; what still waits in
    // the userland queue has not been sent, as with a C write() that was not accepted.
    return this.attemptedBytes - this.socket.writableLength;
  }

  private readonly onReceived = (bytes: number): void => {
    this.rawReceivedBytes += bytes;
    if (this.counting) this.receivedBytes += bytes;
    if (this.flowPacer) this.paceReading(this.flowPacer.take(bytes));
  };

  /**
   * Per-flow cap on a receive stream: stop reading until the bucket has refilled. The kernel's
   * receive buffer fills and the advertised window closes, so the sender slows to the cap.
   */
  private paceReading(waitMs: number): void {
    if (waitMs <= 0 || this.readPauseTimer !== undefined || this.socket.destroyed) return;
    this.socket.pause();
    this.readPauseTimer = setTimeout(() => {
      this.readPauseTimer = undefined;
      if (!this.socket.destroyed) this.socket.resume();
    }, Math.ceil(waitMs));
  }

  private readonly onDrain = (): void => {
    if (this.sending) this.schedulePump();
  };

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(this.pump);
  }

  private readonly pump = (): void => {
    this.pumpScheduled = false;
    const socket = this.socket;
    const block = this.block;
    for (let writes = 0; writes < WRITES_PER_TURN; writes += 1) {
      if (!this.sending || socket.destroyed) return;
      if (!this.budget.open) {
        this.sending = false;
        return;
      }
      if (this.ratePacer && this.waitForPace(this.ratePacer)) return;
      if (this.flowPacer && this.waitForFlowCap(this.flowPacer)) return;
      this.flowPacer?.take(block.length);
      this.attemptedBytes += block.length;
      this.budget.bytesSent += block.length;
      this.budget.blocksSent += 1;
      if (!socket.write(block)) return; // 'drain' resumes
    }
    this.schedulePump();
  };

  /** Per-flow cap on a send stream: true when the next write must wait for the bucket. */
  private waitForFlowCap(pacer: FlowPacer): boolean {
    const waitMs = pacer.waitMs();
    if (waitMs <= 0) return false;
    this.pumpScheduled = true;
    setTimeout(
      () => {
        this.pumpScheduled = false;
        if (this.sending) this.schedulePump();
      },
      Math.max(1, Math.ceil(waitMs)),
    );
    return true;
  }

  /** Application pacing (`bandwidth` per stream): true when the next write must wait. */
  private waitForPace(pacer: AverageRatePacer): boolean {
    const waitMs = pacer.waitMs(this.attemptedBytes, performance.now());
    if (waitMs <= 0) return false;
    this.pumpScheduled = true;
    setTimeout(() => {
      this.pumpScheduled = false;
      if (this.sending) this.schedulePump();
    }, waitMs);
    return true;
  }
}
