import assert from "node:assert/strict";
import { once } from "node:events";
import { Agent, request as httpRequest } from "node:http";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { UploadProgress } from "../../src/probes/s3/upload-progress.js";

const BODY_BYTES = 64 * 1_048_576;

/**
 * A part's first slice is written before the agent gives the request its socket. What of it the
 * far end acknowledged must count before the write completes: it once counted only at the end,
 * so a stall's interval read 26 Mbit/s and the next 136 on a 100 Mbit/s link.
 */
test("bytes written before the request has its socket count once acknowledged, before the write completes", async () => {
  const peers: Socket[] = [];
  // a peer that never reads: its receive buffer (acknowledged) and our send buffer fill, then stop
  const server = createServer((socket) => {
    socket.pause();
    peers.push(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const agent = new Agent({ keepAlive: true });
  const request = httpRequest({
    host: "127.0.0.1",
    port: (server.address() as AddressInfo).port,
    method: "PUT",
    path: "/part",
    agent,
    headers: { "content-length": String(BODY_BYTES) },
  });
  request.on("error", () => {});
  try {
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
    for (const deadline = Date.now() + 5_000; total === 0 && Date.now() < deadline; ) {
      await sleep(20);
      total = progress.total();
    }
    assert.equal(completed, false, "the write cannot complete: the peer reads nothing");
    assert.ok(total > 0, "what the peer's kernel acknowledged counts before the write completes");
    assert.ok(total < BODY_BYTES, `${total} bytes counted of ${BODY_BYTES}, most still unsent`);
  } finally {
    request.destroy();
    agent.destroy();
    for (const peer of peers) peer.destroy();
    server.close();
  }
});
