import { createServer, type Socket } from "node:net";
import type { ServerAuth } from "./server-auth.js";
import { denyAccess, peerAddress, readCookie } from "./server-connection.js";
import { probeReceivePath, type ReceivePath } from "./server-receive.js";
import { ServerSession, type ServerTestReport } from "./server-session.js";
import { DEFAULT_SERVER_TIMEOUTS, type ServerTimeouts } from "./server-watchdogs.js";

export interface Iperf3ServerOptions {
  /** 0 picks a free port; the returned handle has the real one. */
  port: number;
  /** Address to listen on; all addresses when omitted. */
  host?: string;
  /** When set, every test must carry a valid RSA-OAEP `authtoken` (iperf3 3.17+ clients). */
  auth?: ServerAuth;
  log?: (line: string) => void;
  /** Overrides of the protection timeouts (tests use short ones). */
  timeouts?: Partial<ServerTimeouts>;
  /** Called after each test (or refused attempt) once its sockets are closed, with what the server measured. */
  onTestEnd?: (report: ServerTestReport) => void;
  /**
   * How data streams count received bytes. `auto` (default): adopt the TCP handle (no Buffer per
   * read) when the start-up self-test proves it works on this Node, else count 'data' events.
   */
  receivePath?: "auto" | ReceivePath;
  /** Interval of the server's own samples (logged, and sent with the results when asked); 1 s when omitted. */
  sampleIntervalMs?: number;
  /**
   * Per-flow cap, payload bits per second, asked at the start of each test (the lab changes it
   * with the profile without restarting the server); null or omitted for none.
   */
  flowCapBitsPerSecond?: () => number | null;
}

export interface Iperf3Server {
  port: number;
  /** The receive path in use (after the self-test). */
  receivePath: ReceivePath;
  /** Stops listening; a running test gets SERVER_TERMINATE. Resolves once every socket is closed. */
  close(): Promise<void>;
}

/** Connections still sending their cookie; more are refused at once so memory stays bounded. */
const MAX_PENDING_CONNECTIONS = 64;
/** Denied connections linger briefly; beyond this many open sockets newcomers are dropped at once. */
const MAX_OPEN_CONNECTIONS = 1024;

/**
 * A pure-TypeScript iperf3 server (TCP): one test at a time per port, like `iperf3 -s`.
 * A connection becomes the control connection of a new test when the server is idle, a data
 * stream when its cookie matches during CREATE_STREAMS, and gets ACCESS_DENIED (0xFF) otherwise.
 */
export async function startIperf3Server(options: Iperf3ServerOptions): Promise<Iperf3Server> {
  const log = options.log ?? (() => {});
  const receivePath =
    options.receivePath === undefined || options.receivePath === "auto"
      ? await probeReceivePath()
      : options.receivePath;
  log(
    receivePath === "adopted-handle"
      ? "receive path: adopted TCP handle with a shared read buffer (start-up self-test passed)"
      : "receive path: 'data' events (one Buffer per read)",
  );
  const timeouts: ServerTimeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts };
  const sockets = new Set<Socket>();
  let session: ServerSession | undefined;
  let sessionDone: Promise<void> = Promise.resolve();
  let pending = 0;
  let closing = false;

  /** An unreadable cap must not take the server down: the test runs uncapped and the log says why. */
  const currentFlowCap = (): number | null => {
    try {
      return options.flowCapBitsPerSecond?.() ?? null;
    } catch (error) {
      log(`per-flow cap unavailable, running uncapped: ${(error as Error).message}`);
      return null;
    }
  };

  const listener = createServer({ noDelay: false }, (socket) => {
    sockets.add(socket);
    socket.on("error", () => {}); // every owner handles failures through 'close'
    socket.on("close", () => sockets.delete(socket));
    if (closing || sockets.size > MAX_OPEN_CONNECTIONS) {
      socket.destroy();
      return;
    }
    // busy: the stock server answers 0xFF without reading the newcomer's cookie
    if (session && session.phase !== "create-streams") {
      log(`client ${peerAddress(socket)}: busy, access denied`);
      denyAccess(socket);
      return;
    }
    if (pending >= MAX_PENDING_CONNECTIONS) {
      socket.destroy();
      return;
    }
    pending += 1;
    readCookie(socket, timeouts.cookieMs).then(
      ({ cookie }) => {
        pending -= 1;
        if (closing) {
          socket.destroy();
        } else if (session) {
          session.offerDataConnection(socket, cookie);
        } else {
          const current = new ServerSession(socket, cookie, {
            log,
            timeouts,
            receivePath,
            flowCapBitsPerSecond: currentFlowCap(),
            ...(options.auth ? { auth: options.auth } : {}),
            ...(options.sampleIntervalMs !== undefined ? { sampleIntervalMs: options.sampleIntervalMs } : {}),
          });
          session = current;
          sessionDone = current.run().finally(() => {
            if (session === current) session = undefined;
            options.onTestEnd?.(current.report());
          });
        }
      },
      (error: Error) => {
        pending -= 1;
        log(`connection ${peerAddress(socket)} dropped: ${error.message}`);
        socket.destroy();
      },
    );
  });

  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen({ port: options.port, ...(options.host ? { host: options.host } : {}) }, () => {
      listener.off("error", reject);
      resolve();
    });
  });
  listener.on("error", (error) => log(`listener error: ${error.message}`));
  const address = listener.address();
  const port = typeof address === "object" && address ? address.port : options.port;

  return {
    port,
    receivePath,
    close: async () => {
      if (closing) return;
      closing = true;
      const listenerClosed = new Promise<void>((resolve) => listener.close(() => resolve()));
      session?.terminate();
      await sessionDone;
      for (const socket of sockets) socket.destroy();
      await listenerClosed;
    },
  };
}
