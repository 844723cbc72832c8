import { once } from "node:events";
import { connect, createServer, Socket, type SocketConstructorOpts } from "node:net";
import { COOKIE_BYTES } from "./protocol.js";
import { readCookie } from "./server-connection.js";

/**
 * One receive buffer for every stream the server counts: nothing reads the bytes, so they may
 * overwrite each other. 256 KiB lets each read() take what a fast link delivered meanwhile.
 */
const sharedReceiveBuffer = Buffer.allocUnsafe(256 * 1024);

/**
 * How received bytes are counted. `adopted-handle`: the accepted TCP handle is re-wrapped in a
 * Socket with `onread` (no Buffer allocated per read). `data-events`: Node's 'data' chunks are
 * counted (one Buffer per read, always works).
 */
export type ReceivePath = "adopted-handle" | "data-events";

interface HandleOwner {
  _handle?: { readStop?: () => number; reading?: boolean } | null;
}

/**
 * Makes `socket` count what it receives into `onBytes`. Bytes already read from the kernel
 * (the ones pushed back after the cookie, and whatever Node read while the socket was paused)
 * are counted first. On the `adopted-handle` path the accepted TCP handle is then re-wrapped in
 * a Socket with the `onread` option (sockets accepted by net.Server cannot take it) and the
 * original wrapper is retired; that path is used only after `probeReceivePath` proved it on
 * this Node. Returns the socket to use from now on.
 */
export function countReceivedBytes(
  socket: Socket,
  onBytes: (bytes: number) => void,
  path: ReceivePath,
): Socket {
  const owner = socket as unknown as HandleOwner;
  const handle = owner._handle;
  if (path === "data-events" || !handle || typeof handle.readStop !== "function" || socket.destroyed) {
    socket.on("data", (chunk: Buffer) => onBytes(chunk.length));
    socket.resume();
    return socket;
  }
  handle.readStop();
  handle.reading = false;
  // the new wrapper reads from the handle only: what the old one holds would be lost uncounted
  for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null) {
    onBytes(chunk.length);
  }
  const options = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: sharedReceiveBuffer,
      callback: (bytes: number) => {
        onBytes(bytes);
      },
    },
  } as SocketConstructorOpts;
  const adopted = new Socket(options);
  // the old wrapper must not close the handle, but must still leave the server's connection count
  owner._handle = null;
  socket.destroy();
  return adopted;
}

const SELF_TEST_BYTES = 4 * 1024 * 1024;
const SELF_TEST_TIMEOUT_MS = 5_000;

let verdict: Promise<ReceivePath> | undefined;

/**
 * The start-up self-test of handle adoption (once per process): on loopback, a peer sends a
 * cookie and 4 MiB in one go; the server side reads the cookie with the server's own reader
 * (which pauses and pushes the rest back), adopts the handle, and must count every other byte,
 * see the peer's end, and leave the listener's connection count at zero. Anything else (an
 * error, a wrong count, a hang) selects `data-events`.
 */
export function probeReceivePath(): Promise<ReceivePath> {
  verdict ??= selfTest().catch(() => "data-events" as const);
  return verdict;
}

async function selfTest(): Promise<ReceivePath> {
  const listener = createServer();
  listener.listen(0, "127.0.0.1");
  await once(listener, "listening");
  const { port } = listener.address() as { port: number };
  const peer = connect(port, "127.0.0.1");
  peer.on("error", () => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    const [accepted] = (await once(listener, "connection")) as [Socket];
    accepted.on("error", () => {});
    peer.end(Buffer.alloc(COOKIE_BYTES + SELF_TEST_BYTES, 7));
    await readCookie(accepted, SELF_TEST_TIMEOUT_MS);
    let counted = 0;
    const adopted = countReceivedBytes(
      accepted,
      (bytes) => {
        counted += bytes;
      },
      "adopted-handle",
    );
    if (adopted === accepted) return "data-events";
    adopted.on("error", () => {});
    const ended = once(adopted, "end");
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("self-test timed out")), SELF_TEST_TIMEOUT_MS);
    });
    await Promise.race([ended, timeout]);
    adopted.destroy();
    await once(adopted, "close");
    const connections = await new Promise<number>((resolve, reject) =>
      listener.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    return counted === SELF_TEST_BYTES && connections === 0 ? "adopted-handle" : "data-events";
  } finally {
    if (timer) clearTimeout(timer);
    peer.destroy();
    listener.close();
  }
}
