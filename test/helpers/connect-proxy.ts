import { createServer, request, type Server } from "node:http";
import { connect, type Socket } from "node:net";

/**
 * A forward proxy on loopback, as a corporate network has: CONNECT tunnels (https targets) and
 * absolute-form requests (http targets), each recorded ("CONNECT host:port", "POST http://...").
 * Targets on loopback only: anything else is refused with 403, so nothing leaves the machine.
 */
export interface ConnectProxy {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

const loopback = (host: string) => host === "127.0.0.1" || host === "localhost" || host === "[::1]";

export async function startConnectProxy(): Promise<ConnectProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    const target = URL.canParse(incoming.url ?? "") ? new URL(incoming.url ?? "") : null;
    if (!target) {
      outgoing.writeHead(400).end("a proxy takes absolute-form requests");
      return;
    }
    if (!loopback(target.hostname)) {
      outgoing.writeHead(403).end("loopback targets only");
      return;
    }
    const upstream = request(target, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  server.on("connect", (incoming, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${incoming.url}`);
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    const [host, port] = (incoming.url ?? "").split(/:(?=\d+$)/);
    if (!host || !loopback(host) || !port) {
      client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
