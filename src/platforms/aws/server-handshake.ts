import { createConnection } from "node:net";
import { COOKIE_BYTES, makeCookie, State } from "../../probes/iperf3/protocol.js";

/**
 * Does the port answer like an iperf3 server? Connects, sends a cookie, and reads the one
 * state byte a server answers with: PARAM_EXCHANGE (ready), ACCESS_DENIED (busy with another
 * test). Closes right after; the server drops the half-started test. A few seconds at most.
 */
export async function checkIperf3Handshake(host: string, port: number, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(answer);
    };
    const socket = createConnection({ host, port });
    socket.setTimeout(timeoutMs, () => finish(`no answer within ${timeoutMs / 1000} s`));
    socket.once("connect", () => {
      const cookie = makeCookie();
      if (cookie.length !== COOKIE_BYTES) throw new Error("cookie length");
      socket.write(cookie);
    });
    socket.once("data", (data: Buffer) => {
      const state = data.readInt8(0);
      finish(
        state === State.PARAM_EXCHANGE ? "ready" : state === State.ACCESS_DENIED ? "busy" : `state ${state}`,
      );
    });
    socket.once("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.once("end", () => finish("closed without answering"));
  });
}
