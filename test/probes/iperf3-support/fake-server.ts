import { createServer, type Socket } from "node:net";
import { ControlReader } from "../../../src/probes/iperf3/protocol.js";

export interface FakeServerContext {
  /** Data connections accepted so far (every connection after the first). */
  dataSockets: Socket[];
  /** Resolves once `count` data connections arrived. */
  waitForData: (count: number) => Promise<void>;
  /** When set, each data connection is answered with this and closed (a rejected cookie). */
  rejectData?: Buffer;
}

export interface FakeServer {
  port: number;
  context: FakeServerContext;
  /** Resolves when the client's control connection is closed (the client cleaned up). */
  controlClosed: Promise<void>;
  close: () => Promise<void>;
}

/**
 * A misbehaving iperf3 server for the malformed-peer tests: the first connection is the
 * control connection and is handed to `script`; later ones are data connections whose bytes
 * are discarded.
 */
export async function startFakeServer(
  script: (control: Socket, reader: ControlReader, context: FakeServerContext) => Promise<void>,
  setup: Partial<Pick<FakeServerContext, "rejectData">> = {},
): Promise<FakeServer> {
  const sockets: Socket[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const context: FakeServerContext = {
    dataSockets: [],
    waitForData: (count) =>
      context.dataSockets.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    ...setup,
  };
  let resolveControlClosed: () => void = () => {};
  const controlClosed = new Promise<void>((resolve) => {
    resolveControlClosed = resolve;
  });
  let control: Socket | undefined;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => {});
    if (!control) {
      control = socket;
      socket.once("close", () => resolveControlClosed());
      const reader = new ControlReader(socket, "fake client");
      script(socket, reader, context).catch(() => socket.destroy());
      return;
    }
    if (context.rejectData) {
      socket.end(context.rejectData);
      return;
    }
    socket.on("data", () => {});
    context.dataSockets.push(socket);
    for (const waiter of waiters.filter((w) => context.dataSockets.length >= w.count)) waiter.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    context,
    controlClosed,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The client's opening: cookie, PARAM_EXCHANGE, its parameters. Returns the parameters. */
export async function acceptParameters(
  control: Socket,
  reader: ControlReader,
): Promise<Record<string, unknown>> {
  await reader.readExact(37);
  control.write(Buffer.from([9]));
  return (await reader.readJson(8192)) as Record<string, unknown>;
}

/** CREATE_STREAMS, wait for the data connections, then TEST_START and TEST_RUNNING in one write. */
export async function startTest(control: Socket, context: FakeServerContext, streams: number): Promise<void> {
  control.write(Buffer.from([10]));
  await context.waitForData(streams);
  control.write(Buffer.from([1, 2]));
}
