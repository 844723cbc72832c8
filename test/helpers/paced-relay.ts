import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP relay on loopback that carries one direction at a fixed rate: a stand-in for a shaped
 * link where a namespace cannot be used (an in-process server such as s3rver). One token bucket
 * (64 KiB burst) is shared by every connection, so the rate is the link's, not per connection.
 * The other direction passes at full speed. Backpressure is honoured on both sides, so a peer
 * that stops reading stops the relay as a link would.
 */
export interface PacedRelay {
  port: number;
  close(): Promise<void>;
}

const BURST_BYTES = 64 * 1024;
/**
 * The relay stops reading its sender once this much waits for the paced link: a link's
 * bottleneck queue, not a second send buffer. A sender that counts what its peer acknowledged
 * (s3-put) sees the relay's queue and receive buffer as crossed; with 1 MiB here and reading
 * resumed only below a quarter of it, acknowledgements came in steps of most of a megabyte
 * (s3-put's 250 ms intervals at 100 Mbit/s read 32-123 Mbit/s).
 */
const HIGH_WATER_BYTES = 64 * 1024;

class TokenBucket {
  private credit = 0;
  private lastMs = performance.now();
  constructor(private readonly bytesPerSecond: number) {}

  take(wanted: number): number {
    const now = performance.now();
    this.credit = Math.min(BURST_BYTES, this.credit + ((now - this.lastMs) / 1000) * this.bytesPerSecond);
    this.lastMs = now;
    const granted = Math.max(0, Math.min(wanted, Math.floor(this.credit)));
    this.credit -= granted;
    return granted;
  }
}

export async function startPacedRelay(options: {
  upstreamPort: number;
  bitsPerSecond: number;
  /** Which direction is paced: toward the client (downloads) or toward the upstream (uploads). */
  paced: "down" | "up";
}): Promise<PacedRelay> {
  const bucket = new TokenBucket(options.bitsPerSecond / 8);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(options.upstreamPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on("close", () => sockets.delete(socket));
    }
    if (options.paced === "down") {
      pipePaced(upstream, client, bucket);
      client.pipe(upstream);
    } else {
      pipePaced(client, upstream, bucket);
      upstream.pipe(client);
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function pipePaced(from: Socket, to: Socket, bucket: TokenBucket): void {
  const queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  let waitingForDrain = false;
  const flush = (): void => {
    timer = undefined;
    if (to.destroyed) return;
    while (queue.length > 0 && !waitingForDrain) {
      const head = queue[0] as Buffer;
      const granted = bucket.take(head.length);
      if (granted === 0) break;
      const piece = head.subarray(0, granted);
      if (granted === head.length) queue.shift();
      else queue[0] = head.subarray(granted);
      queued -= granted;
      if (!to.write(piece)) {
        waitingForDrain = true;
        to.once("drain", () => {
          waitingForDrain = false;
          flush();
        });
      }
    }
    if (queued < HIGH_WATER_BYTES / 4) from.resume();
    if (queue.length === 0 && ended) to.end();
    else if (queue.length > 0 && !waitingForDrain) timer ??= setTimeout(flush, 1);
  };
  from.on("data", (chunk: Buffer) => {
    queue.push(chunk);
    queued += chunk.length;
    if (queued > HIGH_WATER_BYTES) from.pause();
    if (!timer && !waitingForDrain) flush();
  });
  from.on("end", () => {
    ended = true;
    if (!timer && !waitingForDrain) flush();
  });
}
