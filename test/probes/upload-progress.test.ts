import assert from "node:assert/strict";
import { once } from "node:events";
import { Agent, type ClientRequest, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createServer as createTlsServer } from "node:tls";
import { LossRepairs } from "../../src/probes/retransmits.js";
import { UploadProgress } from "../../src/probes/s3/upload-progress.js";
import { createTestTls } from "../helpers/tls-ca.js";

const BODY_BYTES = 64 * 1_048_576;

/** A PUT of BODY_BYTES to `port` on loopback, sent with `send` (http or https) through `agent`. */
function partRequest(send: typeof httpRequest, port: number, agent: Agent): ClientRequest {
  return send({
    host: "127.0.0.1",
    port,
    method: "PUT",
    path: "/part",
    agent,
    headers: { "content-length": String(BODY_BYTES) },
  });
}

/**
 * One slice of BODY_BYTES written on `request` to a peer that never reads: its receive buffer
 * (acknowledged) and our send buffer fill, then nothing moves and the write never completes.
 * What the peer's kernel acknowledged must count by then: more than 0, less than the slice.
 */
async function assertCountedBeforeTheWriteCompletes(request: ClientRequest): Promise<void> {
  request.on("error", () => {});
  const progress = new UploadProgress();
  progress.watch(request);
  assert.equal(request.socket, null, "the slice must be written before the socket is assigned");
  let completed = false;
  progress.sliceWritten(request, BODY_BYTES);
  request.write(Buffer.alloc(BODY_BYTES), (error) => {
    completed = true;
    progress.sliceDone(request, BODY_BYTES, !error);
  });
  let total = 0;
  // a bound for a count that never comes, not a time the host must keep: over TLS the slice is
  // encrypted whole first, which beside a busy loop at the lowest priority took over 5 s (09:11 run)
  for (const deadline = Date.now() + 60_000; total <= 0 && Date.now() < deadline; ) {
    await sleep(20);
    total = progress.total();
  }
  assert.equal(completed, false, "the write cannot complete: the peer reads nothing");
  assert.ok(
    total > 0,
    `${total} bytes counted: what the peer's kernel acknowledged counts before the write completes`,
  );
  assert.ok(total < BODY_BYTES, `${total} bytes counted of ${BODY_BYTES}, most still unsent`);
  request.destroy();
}

/** The port `server` listens on, on loopback. */
async function listening(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A plain HTTP server whose peers read nothing (their kernels still acknowledge), for `body`. */
async function withPausedHttpPeer(body: (port: number, agent: Agent) => Promise<void>): Promise<void> {
  const peers: Socket[] = [];
  const server = createServer((socket) => {
    socket.pause();
    peers.push(socket);
  });
  const agent = new Agent({ keepAlive: true });
  try {
    await body(await listening(server), agent);
  } finally {
    agent.destroy();
    for (const peer of peers) peer.destroy();
    server.close();
  }
}

/**
 * A part's first slice is written before the agent gives the request its socket. What of it the
 * far end acknowledged must count before the write completes: it once counted only at the end,
 * so a stall's interval read 26 Mbit/s and the next 136 on a 100 Mbit/s link.
 */
test("bytes written before the request has its socket count once acknowledged, before the write completes", async () => {
  await withPausedHttpPeer((port, agent) =>
    assertCountedBeforeTheWriteCompletes(partRequest(httpRequest, port, agent)),
  );
});

/**
 * Every S3 upload is HTTPS. The TLS layer encrypts a slice whole and hands the ciphertext to the
 * TCP handle beneath it; the TLS handle's own writeQueueSize stays at the whole ciphertext until
 * the write completes (Node 20 and 22), so what the kernel already took of the slice was not
 * counted: the total read 0 here (the unacknowledged bytes, none of them counted as sent) and
 * intervals moved in whole slices. The TCP handle's queue is live.
 */
test("over TLS, what the kernel took of a slice still being written counts once acknowledged", async () => {
  const tls = createTestTls();
  const peers: Socket[] = [];
  const server = createTlsServer({ key: tls.key, cert: tls.cert }, (socket) => {
    socket.pause();
    peers.push(socket);
  });
  const agent = new HttpsAgent({ keepAlive: true, ca: tls.caPem });
  try {
    const port = await listening(server);
    await assertCountedBeforeTheWriteCompletes(partRequest(httpsRequest, port, agent));
  } finally {
    agent.destroy();
    for (const peer of peers) peer.destroy();
    server.close();
    tls.remove();
  }
});

/**
 * A hole repaired by a retransmission timeout (200 ms and more) holds its connection's
 * acknowledged count still while what follows it crosses the link, with no retransmit to see
 * meanwhile: a close then read 64 Mbit/s on a 100 Mbit/s link whose own counter read 98, and the
 * next 126. A connection whose bytes are unacknowledged and whose count stands still must say the
 * total may lag (a peer that reads nothing holds it still here); once all is acknowledged, not.
 */
test("a connection holding unacknowledged bytes whose count stands still: the total may lag", async () => {
  await withPausedHttpPeer(async (port, agent) => {
    const request = partRequest(httpRequest, port, agent);
    request.on("error", () => {});
    // no retransmit counter: only the connection's own count can say
    const progress = new UploadProgress(undefined, new LossRepairs("/nonexistent/snmp"));
    progress.watch(request);
    progress.sliceWritten(request, BODY_BYTES);
    request.write(Buffer.alloc(BODY_BYTES), (error) => progress.sliceDone(request, BODY_BYTES, !error));
    // both buffers fill, then nothing moves
    let last = -1;
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
      await sleep(50);
      const total = progress.total();
      if (total > 0 && total === last) break;
      last = total;
    }
    assert.ok(last > 0, "the peer's kernel acknowledged some bytes");
    assert.equal(progress.lagging(performance.now()), true, "a still count with bytes unacknowledged");
    await sleep(40);
    assert.equal(progress.lagging(performance.now()), true, "still, STILL_MS later");
    request.destroy();
  });
});

test("every byte acknowledged: the total does not lag", async () => {
  const server = createServer((socket) => socket.resume());
  const agent = new Agent({ keepAlive: true });
  try {
    const port = await listening(server);
    const request = partRequest(httpRequest, port, agent);
    request.on("error", () => {});
    const progress = new UploadProgress(undefined, new LossRepairs("/nonexistent/snmp"));
    progress.watch(request);
    progress.sliceWritten(request, BODY_BYTES);
    await new Promise<void>((resolve, reject) =>
      request.write(Buffer.alloc(BODY_BYTES), (error) => {
        progress.sliceDone(request, BODY_BYTES, !error);
        if (error) reject(error);
        else resolve();
      }),
    );
    for (const deadline = Date.now() + 5_000; progress.total() < BODY_BYTES && Date.now() < deadline; )
      await sleep(10);
    assert.equal(progress.total(), BODY_BYTES, "all acknowledged");
    assert.equal(progress.lagging(performance.now()), false);
    request.destroy();
  } finally {
    agent.destroy();
    server.close();
  }
});
