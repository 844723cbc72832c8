import { execFile } from "node:child_process";
import { connect, type Socket } from "node:net";

/** The parts of a stock `iperf3 -J` document the tests look at. */
export interface StockSum {
  bytes: number;
  seconds: number;
  bits_per_second: number;
}
export interface StockReport {
  error?: string;
  start?: { test_start?: { num_streams: number; reverse: number } };
  end: {
    streams?: { sender: StockSum & { sender: boolean }; receiver: StockSum }[];
    sum_sent?: StockSum;
    sum_received?: StockSum;
    sum_sent_bidir_reverse?: StockSum;
    sum_received_bidir_reverse?: StockSum;
  };
}

/** The stock client's command line: `iperf3 -c HOST -p PORT -J ARGS...`. */
export function stockClientArgs(host: string, port: number, args: string[]): string[] {
  return ["iperf3", "-c", host, "-p", String(port), "-J", ...args];
}

/** Runs the Debian iperf3 client with -J (in a namespace when `netns` is set) and parses its output. */
export function runStockClient(
  host: string,
  port: number,
  args: string[],
  options: { netns?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<StockReport> {
  const [command, ...rest] = [
    ...(options.netns ? ["ip", "netns", "exec", options.netns] : []),
    ...stockClientArgs(host, port, args),
  ];
  return new Promise((resolve, reject) => {
    execFile(
      command as string,
      rest,
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
        ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
      },
      (error, stdout) => {
        try {
          resolve(JSON.parse(stdout) as StockReport);
        } catch {
          reject(new Error(`iperf3 ${args.join(" ")}: no JSON (${error?.message ?? "empty output"})`));
        }
      },
    );
  });
}

/** How long a raw peer waits for bytes or a close before the test sees it fail. */
const PEER_WAIT_MS = 30_000;

/** A raw TCP peer for malformed-client tests: collects everything the server sends. */
export class RawPeer {
  readonly socket: Socket;
  private received = Buffer.alloc(0);
  private closed = false;
  private waiters: (() => void)[] = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  static open(port: number, host = "127.0.0.1"): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host, () => resolve(new RawPeer(socket)));
      socket.once("error", reject);
    });
  }

  get bytes(): Buffer {
    return this.received;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Waits until at least `count` bytes arrived (or the peer closed, or the timeout passed). The
   * bound only ends a wait that has failed: 30 s, so a test held off the CPU still gets its bytes.
   */
  async waitFor(count: number, timeoutMs = PEER_WAIT_MS): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, Math.max(1, deadline - Date.now()));
      });
    }
    return this.received;
  }

  /** Waits for the server to close the connection; true when it did within the timeout. */
  async waitClosed(timeoutMs = PEER_WAIT_MS): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, Math.max(1, deadline - Date.now()));
      });
    }
    return this.closed;
  }

  write(bytes: Buffer | number[]): void {
    this.socket.write(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

export function jsonFrame(document: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(document));
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

export const TCP_PARAMS = {
  tcp: true,
  omit: 0,
  time: 1,
  num: 0,
  blockcount: 0,
  parallel: 1,
  len: 131072,
  pacing_timer: 1000,
  client_version: "3.12",
};
