import net from "node:net";
import tls from "node:tls";
import type { S3ObjectAddress } from "./s3-address.js";
import { RequestStalledError } from "./s3-transport.js";

/**
 * One persistent HTTP/1.1 connection (TLS or plain TCP) for the download hot path: one GET at
 * a time, the response head parsed here, the body counted straight off the socket's `data`
 * chunks. Compared with node:http this skips the llhttp parser callbacks and the second
 * (IncomingMessage) stream each decrypted TLS record goes through — tens of thousands of
 * records per GiB, which is where a 0.58-vCPU Lambda spends its CPU. Anything unusual (a
 * non-2xx status, chunked encoding) is read whole as a small error document, then the
 * connection is closed.
 */
export interface ResponseHead {
  status: number;
  /** Header names in lower case; repeated headers keep the last value. */
  headers: Record<string, string>;
}

export interface GetHandlers {
  /** Called once with the response head. Return false to read the body as an error document instead of counting it. */
  onHead(head: ResponseHead): boolean;
  /** Body bytes as they arrive (counted mode). */
  onBodyBytes(length: number): void;
}

export interface GetResult {
  head: ResponseHead;
  /** The body when it was read as an error document (not counted). */
  errorBody: Buffer | null;
}

const MAX_HEAD_BYTES = 64 * 1024;
const READ_BUFFER_BYTES = 64 * 1024;
/** The most of an error document kept to say what went wrong (both HTTP/1.1 clients). */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
const HEAD_END = Buffer.from("\r\n\r\n");

export class Http1Connection {
  private socket: net.Socket | tls.TLSSocket | null = null;
  private active: ActiveRequest | null = null;

  constructor(
    private readonly address: S3ObjectAddress,
    private readonly caPem: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  /** Sends a GET with the given (signed) headers; resolves when the whole response was read. */
  get(pathAndQuery: string, headers: Record<string, string>, handlers: GetHandlers): Promise<GetResult> {
    if (this.active) return Promise.reject(new Error("Http1Connection: one request at a time"));
    const socket = this.socket && !this.socket.destroyed ? this.socket : this.connect();
    let head = `GET ${pathAndQuery} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    head += "\r\n";
    return new Promise<GetResult>((resolve, reject) => {
      this.active = new ActiveRequest(handlers, resolve, reject);
      socket.write(head);
    });
  }

  /** Closes the connection (a request in flight fails). */
  destroy(error?: Error): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    this.fail(error ?? new Error("connection closed"));
  }

  private connect(): net.Socket | tls.TLSSocket {
    const { hostname, port } = this.address;
    // Reads land in one buffer per connection and reach us as (length, buffer): no Buffer
    // allocated and no stream 'data' event per TLS record (16 KiB), the hot path's main cost.
    const onread = {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (length: number, buffer: Buffer) => this.onRead(socket, length, buffer),
    };
    // tls.connect documents `onread` (same as net.Socket's); @types/node does not declare it
    const tlsOptions: tls.ConnectionOptions & { onread: typeof onread } = {
      host: hostname,
      port,
      ...(net.isIP(hostname) === 0 ? { servername: hostname } : {}),
      ...(this.caPem ? { ca: this.caPem } : {}),
      ALPNProtocols: ["http/1.1"],
      onread,
    };
    const socket: net.Socket | tls.TLSSocket =
      this.address.protocol === "https:"
        ? tls.connect(tlsOptions)
        : net.connect({ host: hostname, port, onread });
    socket.setNoDelay(true);
    socket.setTimeout(this.timeoutMs);
    socket.on("timeout", () => {
      if (this.socket !== socket) return;
      this.destroy(new RequestStalledError(`no data for ${this.timeoutMs} ms`));
    });
    socket.on("error", (error: Error) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.fail(error);
    });
    socket.on("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.fail(new Error("connection closed by the server"));
    });
    socket.on("end", () => {
      // the server closed its side: a body that reads until close ends here
      if (this.socket !== socket) return;
      const request = this.active;
      if (request?.readsUntilClose) {
        this.socket = null;
        socket.destroy();
        this.finish(request);
      }
    });
    this.socket = socket;
    return socket;
  }

  private onRead(socket: net.Socket, length: number, buffer: Buffer): boolean {
    if (this.socket !== socket) return true;
    const request = this.active;
    // the hot path: body bytes of a counted response, no object created
    if (
      request !== null &&
      request.state === "body" &&
      request.counting &&
      !request.readsUntilClose &&
      length <= request.remaining
    ) {
      request.remaining -= length;
      request.handlers.onBodyBytes(length);
      if (request.remaining === 0) this.finish(request);
      return true;
    }
    // anything else is rare and small: copy it out, the read buffer is reused
    this.onData(Buffer.from(buffer.subarray(0, length)));
    return true;
  }

  private onData(chunk: Buffer): void {
    const request = this.active;
    if (!request) {
      // bytes nobody asked for: the connection is out of step, never reuse it
      this.destroy(new Error("unexpected data on an idle connection"));
      return;
    }
    if (request.state === "body") {
      this.onBody(request, chunk);
      return;
    }
    let split: HeadSplit;
    try {
      split = splitHead(request.headBuffer, chunk);
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    if (!split.complete) {
      request.headBuffer = split.pending;
      return;
    }
    request.headBuffer = null;
    const { head, rest } = split;
    request.head = head;
    request.state = "body";
    const chunked = /\bchunked\b/i.test(head.headers["transfer-encoding"] ?? "");
    const contentLength = head.headers["content-length"];
    request.closeAfter =
      chunked || /\bclose\b/i.test(head.headers.connection ?? "") || contentLength === undefined;
    request.counting = !chunked && request.handlers.onHead(head);
    if (head.status === 204 || head.status === 304 || (head.status >= 100 && head.status < 200)) {
      request.remaining = 0;
    } else if (chunked) {
      request.chunked = true;
    } else if (contentLength === undefined) {
      request.readsUntilClose = true;
    } else {
      request.remaining = Number(contentLength);
      if (!Number.isSafeInteger(request.remaining) || request.remaining < 0) {
        this.destroy(new Error(`bad Content-Length: ${contentLength}`));
        return;
      }
    }
    if (rest.length > 0) this.onBody(request, rest);
    else if (!request.readsUntilClose && !request.chunked && request.remaining === 0) this.finish(request);
  }

  private onBody(request: ActiveRequest, chunk: Buffer): void {
    if (request.readsUntilClose || request.chunked) {
      request.keepErrorBody(chunk);
      if (request.errorBodyBytes >= MAX_ERROR_BODY_BYTES)
        this.destroy(new Error("error document larger than 64 KiB"));
      else if (request.chunked && request.errorBody().subarray(-5).toString("latin1") === "0\r\n\r\n")
        this.finish(request);
      return;
    }
    const length = chunk.length;
    if (length > request.remaining) {
      this.destroy(
        new Error(`the server sent more than Content-Length (${length - request.remaining} bytes over)`),
      );
      return;
    }
    request.remaining -= length;
    if (request.counting) request.handlers.onBodyBytes(length);
    else request.keepErrorBody(chunk);
    if (request.remaining === 0) this.finish(request);
  }

  private finish(request: ActiveRequest): void {
    this.active = null;
    if (request.closeAfter && this.socket) {
      const socket = this.socket;
      this.socket = null;
      socket.destroy();
    }
    const body = request.chunked ? dechunk(request.errorBody()) : request.errorBody();
    request.resolve({ head: request.head as ResponseHead, errorBody: request.counting ? null : body });
  }

  private fail(error: Error): void {
    const request = this.active;
    if (!request) return;
    this.active = null;
    request.reject(error);
  }
}

class ActiveRequest {
  state: "head" | "body" = "head";
  headBuffer: Buffer | null = null;
  head: ResponseHead | null = null;
  remaining = 0;
  counting = true;
  readsUntilClose = false;
  chunked = false;
  closeAfter = false;
  private readonly errorChunks: Buffer[] = [];
  errorBodyBytes = 0;

  constructor(
    readonly handlers: GetHandlers,
    readonly resolve: (result: GetResult) => void,
    readonly reject: (error: Error) => void,
  ) {}

  keepErrorBody(chunk: Buffer): void {
    this.errorChunks.push(chunk);
    this.errorBodyBytes += chunk.length;
  }

  errorBody(): Buffer {
    return Buffer.concat(this.errorChunks);
  }
}

/** The payload of a chunked body (chunk extensions and trailers ignored). */
export function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < body.length) {
    const lineEnd = body.indexOf("\r\n", offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString("latin1").split(";")[0] ?? "", 16);
    if (!Number.isFinite(size) || size <= 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** What has arrived of a response: its parsed head and the body bytes after it, or the bytes to keep for the next read. */
export type HeadSplit =
  | { complete: true; head: ResponseHead; rest: Buffer }
  | { complete: false; pending: Buffer };

/**
 * The response head out of the bytes kept so far and this read: parsed once its blank line has
 * arrived. Throws on a head larger than 64 KiB or one that does not parse (the connection is
 * out of step then, never to be reused).
 */
export function splitHead(pending: Buffer | null, chunk: Buffer): HeadSplit {
  const buffered = pending ? Buffer.concat([pending, chunk]) : chunk;
  const end = buffered.indexOf(HEAD_END);
  if (end < 0) {
    if (buffered.length > MAX_HEAD_BYTES) throw new Error("response head larger than 64 KiB");
    return { complete: false, pending: buffered };
  }
  return {
    complete: true,
    head: parseHead(buffered.subarray(0, end).toString("latin1")),
    rest: buffered.subarray(end + HEAD_END.length),
  };
}

/** Status line and headers of an HTTP/1.1 response head (without the final CRLF CRLF). */
export function parseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  const statusLine = lines[0] ?? "";
  const match = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP/1.1 response: ${JSON.stringify(statusLine.slice(0, 80))}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers };
}
