import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { ProbeError } from "../probe-error.js";

/**
 * The iperf3 control protocol: one-byte states, a 37-byte cookie, and JSON documents
 * framed by a 4-byte big-endian length (../shared/docs/iperf3-protocol.md, sections 1-4).
 * Shared by our client and our server.
 */
export const State = {
  TEST_START: 1,
  TEST_RUNNING: 2,
  TEST_END: 4,
  PARAM_EXCHANGE: 9,
  CREATE_STREAMS: 10,
  SERVER_TERMINATE: 11,
  CLIENT_TERMINATE: 12,
  EXCHANGE_RESULTS: 13,
  DISPLAY_RESULTS: 14,
  IPERF_DONE: 16,
  ACCESS_DENIED: -1,
  SERVER_ERROR: -2,
} as const;
export type StateValue = (typeof State)[keyof typeof State];

export const COOKIE_BYTES = 37;
const COOKIE_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** Parameters above 8 KiB are refused by 3.18+ servers; we refuse them too. */
export const MAX_PARAMS_JSON_BYTES = 8192;
/** Results have no limit in the protocol; this bound keeps a hostile peer from exhausting memory. */
export const MAX_RESULTS_JSON_BYTES = 16 * 1024 * 1024;

/** 36 characters from a-z2-7 and a NUL, as the C client makes it. */
export function makeCookie(): Buffer {
  const cookie = randomBytes(COOKIE_BYTES);
  for (let i = 0; i < COOKIE_BYTES - 1; i += 1) {
    cookie[i] = COOKIE_ALPHABET.charCodeAt((cookie[i] ?? 0) % 32);
  }
  cookie[COOKIE_BYTES - 1] = 0;
  return cookie;
}

export function cookieText(cookie: Buffer): string {
  const nul = cookie.indexOf(0);
  return cookie.subarray(0, nul < 0 ? cookie.length : nul).toString("latin1");
}

export function encodeState(state: number): Buffer {
  const byte = Buffer.alloc(1);
  byte.writeInt8(state);
  return byte;
}

export function encodeJson(document: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(document), "utf8");
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  return frame;
}

/** 3.12 prints -1 as 18446744073709551615; any integer beyond 2^53 means -1. */
export function normalizeCount(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return -1;
  return value > Number.MAX_SAFE_INTEGER ? -1 : value;
}

/**
 * Why a control read failed: the peer closed or reset the connection (`eof`), sent a frame that
 * breaks the protocol (`malformed`: a JSON length out of range, JSON that does not parse), or
 * sent more unread bytes than the reader holds (`overflow`). Callers decide by the reason,
 * never by the message text.
 */
export type ControlReadReason = "eof" | "malformed" | "overflow";

export class ControlReadError extends ProbeError {
  readonly reason: ControlReadReason;

  constructor(reason: ControlReadReason, message: string, options?: { cause?: unknown }) {
    super("protocol", message, options);
    this.name = "ControlReadError";
    this.reason = reason;
  }
}

export function isControlReadError(error: unknown, reason?: ControlReadReason): error is ControlReadError {
  return error instanceof ControlReadError && (reason === undefined || error.reason === reason);
}

interface Waiter {
  bytes: number;
  resolve: (data: Buffer) => void;
  reject: (error: Error) => void;
  /** When true, an EOF after at least one byte resolves with what arrived (old 4-byte SERVER_ERROR). */
  acceptShort: boolean;
}

/**
 * Buffered reader over the control socket. The control stream is a byte stream:
 * messages split across reads and share reads, so every read asks for an exact count.
 * At most one read is outstanding; buffered bytes are bounded.
 */
export class ControlReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiter: Waiter | undefined;
  private ended: Error | undefined;
  private readonly maxBuffered: number;

  constructor(
    private readonly socket: Socket,
    private readonly peerName: string,
    maxBuffered = MAX_RESULTS_JSON_BYTES + 64,
  ) {
    this.maxBuffered = maxBuffered;
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () =>
      this.onEnd(new ControlReadError("eof", `${peerName} closed the control connection`)),
    );
    socket.on("close", () =>
      this.onEnd(new ControlReadError("eof", `${peerName} closed the control connection`)),
    );
    // a reset ends the conversation as a close does; the errno stays in the cause
    socket.on("error", (error: NodeJS.ErrnoException) =>
      this.onEnd(
        new ControlReadError("eof", `control connection to ${peerName} failed: ${error.message}`, {
          cause: error,
        }),
      ),
    );
  }

  readExact(bytes: number, acceptShort = false): Promise<Buffer> {
    if (this.waiter) return Promise.reject(new Error("ControlReader: concurrent reads"));
    if (this.buffered >= bytes) return Promise.resolve(this.take(bytes));
    if (this.ended) {
      if (acceptShort && this.buffered > 0) return Promise.resolve(this.take(this.buffered));
      return Promise.reject(this.ended);
    }
    return new Promise((resolve, reject) => {
      this.waiter = { bytes, resolve, reject, acceptShort };
    });
  }

  async readState(): Promise<number> {
    return (await this.readExact(1)).readInt8(0);
  }

  /** A length-prefixed JSON document; refuses lengths above maxBytes before reading the body. */
  async readJson(maxBytes: number): Promise<unknown> {
    const length = (await this.readExact(4)).readUInt32BE(0);
    if (length === 0 || length > maxBytes) {
      throw new ControlReadError(
        "malformed",
        `${this.peerName} sent a JSON length of ${length} bytes (allowed 1..${maxBytes})`,
      );
    }
    const body = await this.readExact(length);
    try {
      return JSON.parse(body.toString("utf8"));
    } catch {
      throw new ControlReadError("malformed", `${this.peerName} sent a JSON frame that does not parse`);
    }
  }

  /** Stops delivering; later reads fail with `reason`. */
  close(reason: Error): void {
    this.onEnd(reason);
  }

  private onData(chunk: Buffer): void {
    if (this.ended) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered > this.maxBuffered) {
      const error = new ControlReadError(
        "overflow",
        `${this.peerName} sent more than ${this.maxBuffered} unread bytes`,
      );
      this.onEnd(error);
      this.socket.destroy();
      return;
    }
    this.serve();
  }

  private onEnd(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    if (waiter.acceptShort && this.buffered > 0) waiter.resolve(this.take(this.buffered));
    else waiter.reject(error);
  }

  private serve(): void {
    const waiter = this.waiter;
    if (!waiter || this.buffered < waiter.bytes) return;
    this.waiter = undefined;
    waiter.resolve(this.take(waiter.bytes));
  }

  private take(bytes: number): Buffer {
    const all =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }
}
