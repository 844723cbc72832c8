import { isProbeError } from "../probe-error.js";
import type { LatencyMeasurement } from "./measurement.js";
import type { LatencyEvent } from "./options.js";
import { TimedConnection } from "./timed-connection.js";

/**
 * After each connect, this long before the next: stock iperf3 serves one test at a time, and a
 * control connection closed before its cookie is an aborted test it cleans up before it listens
 * again; a connect in that window is refused or reset (7 of 30 back to back on loopback failed
 * the whole probe, 2026-12-02, and the stock-kernel VM's lab saw "refused").
 */
export const CONNECT_PAUSE_MS = 20;
/** After a refused or reset connect: the server is between tests, not gone. */
const RETRY_PAUSE_MS = 100;
/** What a server between tests answers; anything else (a name that does not resolve, a TLS error) fails the probe. */
const BETWEEN_TESTS = new Set(["ECONNREFUSED", "ECONNRESET"]);

/**
 * TCP connects to the iperf3 server, one after another, each closed at once: the connect is
 * the round trip (SYN, SYN-ACK) and no test starts (the server drops a connection that sends
 * no cookie). A name is looked up before each connect's clock starts. A connect timed out,
 * refused or reset is counted as failed; the probe fails only when every connect did.
 */
export async function timeIperf3Connects(
  server: NonNullable<LatencyEvent["iperf3"]>,
  timeoutMs: number,
): Promise<NonNullable<LatencyMeasurement["iperf3Connect"]>> {
  const connectSeconds: number[] = [];
  let failedConnects = 0;
  let lastFailure: unknown = null;
  for (let i = 0; i < server.connects; i += 1) {
    if (i > 0) await sleep(lastFailure === null ? CONNECT_PAUSE_MS : RETRY_PAUSE_MS);
    const startMs = performance.now();
    try {
      const { connection, marks } = await TimedConnection.open({
        protocol: "http:",
        hostname: server.host,
        port: server.port,
        secureContext: null,
        timeoutMs,
      });
      connection.close();
      lastFailure = null;
      connectSeconds.push(roundMicro((marks.connectEndMs - (marks.lookupEndMs ?? startMs)) / 1000));
    } catch (error) {
      if (!betweenTests(error)) throw error;
      failedConnects += 1;
      lastFailure = error;
    }
  }
  if (connectSeconds.length === 0) throw lastFailure;
  return { host: server.host, port: server.port, connectSeconds, failedConnects };
}

function betweenTests(error: unknown): boolean {
  if (!isProbeError(error)) return false;
  if (error.kind === "connect-timeout" || error.kind === "connection-refused") return true;
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && BETWEEN_TESTS.has(code);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A microsecond is finer than any phase this probe times, and keeps records short. */
function roundMicro(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}
