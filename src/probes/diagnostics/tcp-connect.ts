import { connect } from "node:net";
import type { TcpConnectEvent } from "./options.js";

/** What one connection attempt found: the connect time, or the error that stopped it. */
export type TcpConnectResult =
  | { host: string; port: number; connected: true; connectSeconds: number }
  | { host: string; port: number; connected: false; error: string };

/**
 * Opens one TCP connection and closes it as soon as it is up (nothing is sent: the server sees
 * a connection that ends at once, as a port scan, and its iperf3 frees the port at once).
 * A refusal, an unknown name or no answer within the timeout is a result, not a failure: the
 * caller decides what an unreachable server means.
 */
export function connectOnce(event: TcpConnectEvent): Promise<TcpConnectResult> {
  const { host, port } = event;
  const startMs = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const finish = (result: TcpConnectResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ host, port, connected: false, error: `no answer within ${event.timeoutSeconds} s` }),
      event.timeoutSeconds * 1000,
    );
    socket.once("connect", () =>
      finish({ host, port, connected: true, connectSeconds: (performance.now() - startMs) / 1000 }),
    );
    socket.once("error", (error: NodeJS.ErrnoException) =>
      finish({ host, port, connected: false, error: error.code ?? error.message }),
    );
  });
}
