import { lookup } from "node:dns/promises";
import net from "node:net";
import tls from "node:tls";
import { connectError } from "../iperf3/tcp-connect.js";
import { ProbeError } from "../probe-error.js";
import {
  type HeadSplit,
  MAX_ERROR_BODY_BYTES,
  type ResponseHead,
  splitHead,
} from "../s3/http1-connection.js";
import { RequestStalledError } from "../s3/s3-transport.js";

/**
 * One HTTP/1.1 connection whose set-up and requests are timed phase by phase on the monotonic
 * clock (performance.now()): the name look-up, the TCP connect and the TLS handshake are done
 * one after the other (look-up apart from connect, TLS on the connected socket), so each
 * phase ends at an event of its own, as curl times them. One GET at a time; small bodies.
 */

export interface ConnectionTarget {
  protocol: "https:" | "http:";
  hostname: string;
  port: number;
  /** Shared by every connection of a run (created once, as a client's agent would). */
  secureContext: tls.SecureContext | null;
  /** Idle limit: no progress for this long fails the phase or request. */
  timeoutMs: number;
}

/** Ends of the set-up phases, performance.now() milliseconds; null for a phase there was not. */
export interface SetupMarks {
  lookupEndMs: number | null;
  connectEndMs: number;
  tlsEndMs: number | null;
}

export interface ResponseMarks {
  sentMs: number;
  firstByteMs: number;
  lastByteMs: number;
  head: ResponseHead;
  /** Body bytes read (counted, not kept, for a 2xx; the error document otherwise). */
  bodyBytes: number;
  errorBody: Buffer | null;
}

export class TimedConnection {
  private active: ActiveResponse | null = null;
  private closedReason: Error | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("timeout", () => this.close(new RequestStalledError("no data for the request timeout")));
    socket.on("error", (error: Error) => this.close(error));
    socket.on("close", () => this.close(new Error("connection closed by the server")));
  }

  /** Opens a connection: look-up (names only), TCP connect, TLS (https only), each phase timed. */
  static async open(target: ConnectionTarget): Promise<{ connection: TimedConnection; marks: SetupMarks }> {
    const where = `${target.hostname}:${target.port}`;
    // URL host names keep an IPv6 address in brackets
    let address = target.hostname.replace(/^\[(.*)\]$/, "$1");
    let lookupEndMs: number | null = null;
    if (net.isIP(address) === 0) {
      address = await withTimeout(resolveName(address, where), target.timeoutMs, `${where} look-up`);
      lookupEndMs = performance.now();
    }
    const raw = await connectSocket(address, target.port, target.timeoutMs, where);
    const connectEndMs = performance.now();
    if (target.protocol === "http:") {
      raw.setTimeout(target.timeoutMs);
      return { connection: new TimedConnection(raw), marks: { lookupEndMs, connectEndMs, tlsEndMs: null } };
    }
    const secure = await handshake(raw, target, where);
    return {
      connection: new TimedConnection(secure),
      marks: { lookupEndMs, connectEndMs, tlsEndMs: performance.now() },
    };
  }

  get usable(): boolean {
    return this.closedReason === null && !this.socket.destroyed;
  }

  /** Sends one GET head and reads the whole response; the marks are performance.now() milliseconds. */
  get(pathAndQuery: string, headers: Record<string, string>): Promise<ResponseMarks> {
    if (this.active) return Promise.reject(new Error("TimedConnection: one request at a time"));
    if (this.closedReason) return Promise.reject(this.closedReason);
    let head = `GET ${pathAndQuery} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    head += "\r\n";
    return new Promise<ResponseMarks>((resolve, reject) => {
      const response = new ActiveResponse(resolve, reject);
      this.active = response;
      // marked as the head is handed to the socket, as curl's time_pretransfer is: a write
      // callback waits for the event loop, which under load counts our own latency as the link's
      response.sentMs = performance.now();
      this.socket.write(head);
    });
  }

  /** Closes the connection (a request in flight fails with `reason`). */
  close(reason: Error = new Error("connection closed")): void {
    this.closedReason ??= reason;
    this.socket.destroy();
    const response = this.active;
    this.active = null;
    response?.reject(reason);
  }

  private onData(chunk: Buffer): void {
    const nowMs = performance.now();
    const response = this.active;
    if (!response) {
      // bytes nobody asked for: the connection is out of step, never reuse it
      this.close(new Error("unexpected data on an idle connection"));
      return;
    }
    if (response.firstByteMs === 0) response.firstByteMs = nowMs;
    if (response.head === null) {
      let split: HeadSplit;
      try {
        split = splitHead(response.headBuffer, chunk);
        if (split.complete) response.start(split.head);
      } catch (error) {
        this.close(error as Error);
        return;
      }
      if (!split.complete) {
        response.headBuffer = split.pending;
        return;
      }
      response.headBuffer = null;
      chunk = split.rest;
    }
    if (chunk.length > response.remaining) {
      this.close(
        new Error(
          `the server sent more than Content-Length (${chunk.length - response.remaining} bytes over)`,
        ),
      );
      return;
    }
    response.take(chunk);
    if (response.errorBodyBytes > MAX_ERROR_BODY_BYTES) {
      this.close(new Error("error document larger than 64 KiB"));
      return;
    }
    if (response.remaining === 0) {
      this.active = null;
      if (response.closeAfter) {
        this.closedReason = new Error("the server closed the connection after its response");
        this.socket.destroy();
      }
      response.finish(nowMs);
    }
  }
}

class ActiveResponse {
  sentMs = 0;
  firstByteMs = 0;
  head: ResponseHead | null = null;
  headBuffer: Buffer | null = null;
  remaining = 0;
  bodyBytes = 0;
  counting = true;
  closeAfter = false;
  private readonly errorChunks: Buffer[] = [];
  errorBodyBytes = 0;

  constructor(
    private readonly resolve: (marks: ResponseMarks) => void,
    readonly reject: (error: Error) => void,
  ) {}

  /** The head is in: how much body follows and whether it is counted or kept as an error document. */
  start(head: ResponseHead): void {
    this.head = head;
    const contentLength = head.headers["content-length"];
    if (/\bchunked\b/i.test(head.headers["transfer-encoding"] ?? "") || contentLength === undefined) {
      // S3 answers a GET with Content-Length; anything else is not the response this probe times
      throw new ProbeError(
        "protocol",
        `HTTP ${head.status} without Content-Length: S3 GETs are answered with a length`,
      );
    }
    const length = Number(contentLength);
    if (!Number.isSafeInteger(length) || length < 0) throw new Error(`bad Content-Length: ${contentLength}`);
    this.remaining = length;
    this.counting = head.status >= 200 && head.status < 300;
    this.closeAfter = /\bclose\b/i.test(head.headers.connection ?? "");
  }

  take(chunk: Buffer): void {
    this.remaining -= chunk.length;
    this.bodyBytes += chunk.length;
    if (!this.counting) {
      this.errorChunks.push(chunk);
      this.errorBodyBytes += chunk.length;
    }
  }

  finish(lastByteMs: number): void {
    this.resolve({
      sentMs: this.sentMs,
      firstByteMs: this.firstByteMs,
      lastByteMs,
      head: this.head as ResponseHead,
      bodyBytes: this.bodyBytes,
      errorBody: this.counting ? null : Buffer.concat(this.errorChunks),
    });
  }
}

/** The name's first address, as net.connect would resolve it (getaddrinfo through dns.lookup). */
async function resolveName(hostname: string, where: string): Promise<string> {
  try {
    return (await lookup(hostname)).address;
  } catch (error) {
    throw connectError(error as NodeJS.ErrnoException, where);
  }
}

function connectSocket(address: string, port: number, timeoutMs: number, where: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, noDelay: true });
    socket.setTimeout(timeoutMs);
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    const onError = (error: NodeJS.ErrnoException) => fail(connectError(error, where));
    const onTimeout = () =>
      fail(new ProbeError("connect-timeout", `connecting to ${where} timed out after ${timeoutMs} ms`));
    socket.once("error", onError);
    socket.once("timeout", onTimeout);
    socket.once("connect", () => {
      socket.off("error", onError);
      socket.off("timeout", onTimeout);
      // the caller sets the idle limit of whatever runs on the socket next (TLS or requests)
      socket.setTimeout(0);
      resolve(socket);
    });
  });
}

/** TLS on a connected socket; the certificate is checked (a lab's own CA arrives in the secure context). */
function handshake(socket: net.Socket, target: ConnectionTarget, where: string): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({
      socket,
      ...(net.isIP(target.hostname.replace(/^\[(.*)\]$/, "$1")) === 0 ? { servername: target.hostname } : {}),
      ...(target.secureContext ? { secureContext: target.secureContext } : {}),
      ALPNProtocols: ["http/1.1"],
    });
    secure.setTimeout(target.timeoutMs);
    const fail = (error: Error) => {
      secure.destroy();
      reject(error);
    };
    const onError = (error: Error) =>
      fail(new ProbeError("protocol", `TLS with ${where} failed: ${error.message}`, { cause: error }));
    const onTimeout = () =>
      fail(new ProbeError("connect-timeout", `TLS with ${where} timed out after ${target.timeoutMs} ms`));
    secure.once("error", onError);
    secure.once("timeout", onTimeout);
    secure.once("secureConnect", () => {
      secure.off("error", onError);
      secure.off("timeout", onTimeout);
      resolve(secure);
    });
  });
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ProbeError("connect-timeout", `${what} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
