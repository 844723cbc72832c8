import { connect, type OnReadOpts, type Socket } from "node:net";
import { ProbeError } from "../probe-error.js";

export interface ConnectTarget {
  host: string;
  port: number;
  timeoutMs: number;
  /** Receive into a caller-owned buffer instead of allocating one per chunk. */
  onread?: OnReadOpts;
}

/**
 * One TCP connect with a timeout, failing with a ProbeError whose kind tells refused,
 * unreachable (including a host name that does not resolve) and timed out apart.
 * The socket is destroyed on every failure path.
 */
export function connectTcp(target: ConnectTarget): Promise<Socket> {
  const where = `${target.host}:${target.port}`;
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: target.host,
      port: target.port,
      ...(target.onread ? { onread: target.onread } : {}),
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new ProbeError("connect-timeout", `connecting to ${where} timed out after ${target.timeoutMs} ms`),
      );
    }, target.timeoutMs);
    const onError = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(connectError(error, where));
    };
    socket.once("error", onError);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.off("error", onError);
      resolve(socket);
    });
  });
}

export function connectError(error: NodeJS.ErrnoException, where: string): ProbeError {
  switch (error.code) {
    case "ECONNREFUSED":
      return new ProbeError(
        "connection-refused",
        `${where} refused the connection (no iperf3 server listening?)`,
        {
          cause: error,
        },
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return new ProbeError("unreachable", `host ${where} not found (${error.code})`, { cause: error });
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "EHOSTDOWN":
    case "ENETDOWN":
    case "EADDRNOTAVAIL":
      return new ProbeError("unreachable", `${where} is unreachable (${error.code})`, { cause: error });
    case "ETIMEDOUT":
      return new ProbeError("connect-timeout", `connecting to ${where} timed out (${error.code})`, {
        cause: error,
      });
    default:
      return new ProbeError("protocol", `connecting to ${where} failed: ${error.message}`, { cause: error });
  }
}
