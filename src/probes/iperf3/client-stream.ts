import type { Socket } from "node:net";
import { ProbeError } from "../probe-error.js";
import { connectTcp } from "./tcp-connect.js";
import type { TransferTally } from "./transfer-tally.js";

/** Bytes written per event-loop turn before yielding, so timers and the control socket keep running. */
const BURST_BYTES = 2 * 1024 * 1024;
/**
 * Blocks are written in corked batches of about this size: one writev(2) and one Node write
 * request per batch instead of per block (loopback A/B, 5 runs each: median 0.34 CPU s/GiB
 * vs 0.44 writing block by block).
 */
const BATCH_BYTES = 512 * 1024;

export interface DataStreamOptions {
  host: string;
  port: number;
  connectTimeoutMs: number;
  cookie: Buffer;
  /** iperf3 stream id: 1, 3, 4, 5, ... in creation order. */
  id: number;
  /** True when this side writes on the stream (normal mode, first half of bidir). */
  localSends: boolean;
  /** The block every write sends (shared, never modified). */
  block: Buffer;
  /** Receive buffer shared by all streams: received bytes are counted and discarded. */
  receiveBuffer: Buffer;
  tally: TransferTally;
}

/**
 * One TCP data connection of a test. Receiving uses `onread` with a shared preallocated
 * buffer (no allocation per chunk); sending writes one reused block, a bounded burst per
 * event-loop turn, and waits for 'drain' when Node's queue fills. The callbacks are bound
 * once per stream, so the hot path allocates nothing but Node's own write requests.
 */
export class ClientStream {
  readonly id: number;
  readonly localSends: boolean;
  private movedBytes = 0;
  /** Received before counting began (see startRunning). */
  private earlyBytes = 0;
  private socket: Socket | undefined;
  address = { localHost: "", localPort: 0, remoteHost: "", remotePort: 0 };
  /** process.hrtime when the cookie went out: no data of the test can arrive before it. */
  cookieSentNs = 0n;
  private sending = false;
  private awaitingDrain = false;
  private finished = false;
  /** The server answered our cookie with ACCESS_DENIED (0xFF). */
  private rejected = false;
  private readonly tally: TransferTally;
  private readonly block: Buffer;
  private readonly batchesPerTurn: number;
  private readonly blocksPerBatch: number;

  constructor(private readonly options: DataStreamOptions) {
    this.id = options.id;
    this.localSends = options.localSends;
    this.tally = options.tally;
    this.block = options.block;
    this.blocksPerBatch = Math.min(64, Math.max(1, Math.floor(BATCH_BYTES / options.block.length)));
    this.batchesPerTurn = Math.max(1, Math.ceil(BURST_BYTES / (this.blocksPerBatch * options.block.length)));
  }

  /** Bytes moved while the tally was counting (from TEST_START to TEST_END). */
  get moved(): number {
    return this.movedBytes;
  }

  /** A receiving stream's reads so far: `moved` and what came before counting began (see startRunning). */
  get bytesRead(): number {
    return this.movedBytes + this.earlyBytes;
  }

  /**
   * Bytes of this stream's writes the kernel has taken so far, to the byte (a write counts in
   * `moved` only once all of it was taken): what Node dispatched to the socket's handle minus what
   * the handle has not yet handed to the kernel. `_bytesDispatched` and `_handle.writeQueueSize`
   * are the fields Node's net.js itself computes `bytesWritten` and its write timeouts from;
   * null where a runtime lacks them (then only whole writes count).
   */
  get kernelTakenBytes(): number | null {
    const socket = this.socket as
      | (Socket & { _bytesDispatched?: unknown; _handle?: { writeQueueSize?: unknown } | null })
      | undefined;
    const dispatched = socket?._bytesDispatched;
    const queued = socket?._handle?.writeQueueSize;
    if (typeof dispatched !== "number" || typeof queued !== "number") return null;
    return dispatched - queued;
  }

  /** Connects and writes the cookie; resolves once the cookie is handed to the kernel. */
  async open(): Promise<void> {
    const { host, port, connectTimeoutMs, receiveBuffer } = this.options;
    const socket = await connectTcp({
      host,
      port,
      timeoutMs: connectTimeoutMs,
      onread: { buffer: receiveBuffer, callback: this.onRead },
    });
    this.socket = socket;
    // kept now: a destroyed socket no longer knows its addresses
    this.address = {
      localHost: socket.localAddress ?? "",
      localPort: socket.localPort ?? 0,
      remoteHost: socket.remoteAddress ?? "",
      remotePort: socket.remotePort ?? 0,
    };
    socket.on("error", this.onError);
    socket.on("close", this.onClose);
    socket.on("drain", this.onDrain);
    this.cookieSentNs = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) =>
      socket.write(this.options.cookie, (error) => (error ? reject(error) : resolve())),
    );
  }

  /**
   * TEST_RUNNING: a sending stream starts writing; a receiving one counts what arrived before the
   * control loop saw TEST_START (the server writes right after it, and Node may deliver those
   * reads first: uncounted, a --bytes download fell short of its limit and ran to the time cap).
   */
  startRunning(): void {
    if (!this.localSends) {
      const early = this.earlyBytes;
      this.earlyBytes = 0;
      if (early > 0 && this.tally.counting) {
        this.movedBytes += early;
        this.tally.addReceived(early);
      }
      return;
    }
    if (this.sending) return;
    this.sending = true;
    this.pump();
  }

  /** TEST_END: stop writing; keep reading (and discarding) so the server's close is clean. */
  stop(): void {
    this.sending = false;
    this.finished = true;
  }

  destroy(): void {
    this.sending = false;
    this.finished = true;
    this.socket?.destroy();
  }

  private readonly pump = (): void => {
    const socket = this.socket;
    if (!this.sending || !socket || socket.destroyed) return;
    const limit = Math.max(socket.writableHighWaterMark, this.block.length);
    for (let batch = 0; batch < this.batchesPerTurn; batch += 1) {
      if (socket.writableLength >= limit) {
        // the kernel buffer is full and Node queued the rest: resume on 'drain'
        this.awaitingDrain = true;
        return;
      }
      socket.cork();
      for (let i = 0; i < this.blocksPerBatch; i += 1) {
        if (!this.writeBlock(socket)) {
          // the byte limit is spent: what was written so far ends the test once it is taken
          this.sending = false;
          break;
        }
      }
      socket.uncork();
      if (!this.sending) return;
    }
    // the kernel took everything at once (fast link): yield so timers and control reads run
    setImmediate(this.pump);
  };

  /** One block, or the part of it the byte limit still allows; false when nothing may go out. */
  private writeBlock(socket: Socket): boolean {
    const bytes = this.tally.allowance(this.block.length);
    if (bytes === this.block.length) {
      socket.write(this.block, this.onWritten);
      return true;
    }
    if (bytes > 0) socket.write(this.block.subarray(0, bytes), (error) => this.countWritten(bytes, error));
    return false;
  }

  private readonly onDrain = (): void => {
    if (!this.awaitingDrain) return;
    this.awaitingDrain = false;
    this.pump();
  };

  /** Counts a block once Node handed it to the kernel, as C counts what write() accepted. */
  private readonly onWritten = (error?: Error | null): void => {
    this.countWritten(this.block.length, error);
  };

  private countWritten(bytes: number, error?: Error | null): void {
    if (error || !this.tally.counting) return;
    this.movedBytes += bytes;
    this.tally.addSent(bytes);
  }

  private readonly onRead = (bytes: number, buffer: Buffer): boolean => {
    if (this.tally.counting) {
      this.movedBytes += bytes;
      this.tally.addReceived(bytes);
    } else if (!this.finished) {
      if (buffer[0] === 0xff) this.rejected = true;
      this.earlyBytes += bytes;
    }
    return true;
  };

  private readonly onError = (error: Error): void => {
    if (this.finished) return; // resets after TEST_END are normal: the server closes its data sockets
    this.finished = true;
    this.tally.fail(
      new ProbeError("protocol", `data stream ${this.id} failed during the test: ${error.message}`, {
        cause: error,
      }),
    );
  };

  private readonly onClose = (): void => {
    if (this.finished) return;
    this.finished = true;
    this.tally.fail(
      new ProbeError(
        "protocol",
        this.rejected
          ? `the server rejected data stream ${this.id} (ACCESS_DENIED: cookie not accepted)`
          : `the server closed data stream ${this.id} before the test ended`,
      ),
    );
  };
}
