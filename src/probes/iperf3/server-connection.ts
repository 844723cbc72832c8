import type { Socket } from "node:net";
import { COOKIE_BYTES } from "./protocol.js";

/** A new connection's first 37 bytes, and anything that came with them. */
export interface CookieRead {
  cookie: Buffer;
  rest: Buffer;
}

/**
 * Reads the 37-byte cookie every iperf3 connection starts with, within `timeoutMs`. The socket
 * is left paused with any extra bytes pushed back, so the next owner attaches its listener and
 * calls resume() without losing a byte.
 */
export function readCookie(socket: Socket, timeoutMs: number): Promise<CookieRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onGone);
      socket.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < COOKIE_BYTES) return;
      socket.pause();
      cleanup();
      const all = Buffer.concat(chunks, received);
      const rest = all.subarray(COOKIE_BYTES);
      if (rest.length > 0) socket.unshift(rest);
      resolve({ cookie: all.subarray(0, COOKIE_BYTES), rest });
    };
    const onGone = () => {
      cleanup();
      reject(new Error(`closed after ${received} of ${COOKIE_BYTES} cookie bytes`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`sent ${received} of ${COOKIE_BYTES} cookie bytes in ${timeoutMs / 1000} s`));
    }, timeoutMs);
    socket.on("data", onData);
    socket.on("end", onGone);
    socket.on("close", onGone);
  });
}

const DENIED_LINGER_MS = 2_000;

/**
 * ACCESS_DENIED: one 0xFF byte, then close. Whatever the peer sends is read and dropped, so
 * the close is a FIN after our byte rather than a reset that could overtake it.
 */
export function denyAccess(socket: Socket): void {
  if (socket.destroyed) return;
  socket.on("data", () => {});
  socket.end(Buffer.from([0xff]));
  socket.resume();
  setTimeout(() => socket.destroy(), DENIED_LINGER_MS).unref();
}

/** "address:port" of the peer, for logs. */
export function peerAddress(socket: Socket): string {
  const host = socket.remoteAddress ?? "?";
  return host.includes(":") ? `[${host}]:${socket.remotePort}` : `${host}:${socket.remotePort}`;
}
