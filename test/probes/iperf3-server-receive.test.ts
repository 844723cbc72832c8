import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { test } from "node:test";
import { startIperf3Server } from "../../src/probes/iperf3/server.js";
import { readCookie } from "../../src/probes/iperf3/server-connection.js";
import {
  countReceivedBytes,
  probeReceivePath,
  type ReceivePath,
} from "../../src/probes/iperf3/server-receive.js";
import { runStockClient } from "./iperf3-support/stock-client.js";

/**
 * The server's two ways of counting received bytes: the adopted TCP handle (only after the
 * start-up self-test) and the 'data' fallback. Both must count the bytes that arrived with the
 * cookie and were pushed back, and the fallback must serve a whole test.
 */

test("the start-up self-test adopts the handle on this Node (and says so once per process)", async () => {
  assert.equal(await probeReceivePath(), "adopted-handle");
  assert.equal(await probeReceivePath(), "adopted-handle");
});

for (const path of ["adopted-handle", "data-events"] as ReceivePath[]) {
  test(`${path}: bytes that came with the cookie are counted, then every later byte`, async () => {
    const listener = createServer();
    listener.listen(0, "127.0.0.1");
    await once(listener, "listening");
    const { port } = listener.address() as { port: number };
    const peer = connect(port, "127.0.0.1");
    try {
      const [accepted] = (await once(listener, "connection")) as [Socket];
      // cookie and the first data in one segment, so some data is read with the cookie
      peer.write(Buffer.concat([Buffer.alloc(37, 97), Buffer.alloc(5_000, 1)]));
      const { rest } = await readCookie(accepted, 2_000);
      assert.ok(rest.length > 0, "some data arrived with the cookie and was pushed back");
      let counted = 0;
      const socket = countReceivedBytes(
        accepted,
        (bytes) => {
          counted += bytes;
        },
        path,
      );
      assert.equal(socket !== accepted, path === "adopted-handle");
      peer.end(Buffer.alloc(1_000_000, 2));
      await once(socket, "end");
      assert.equal(counted, 5_000 + 1_000_000);
      socket.destroy();
    } finally {
      peer.destroy();
      listener.close();
    }
  });
}

test("the data-events fallback serves a whole test to the stock client (-P 2 and -R)", async () => {
  const logLines: string[] = [];
  const server = await startIperf3Server({
    port: 0,
    host: "127.0.0.1",
    receivePath: "data-events",
    log: (line) => logLines.push(line),
  });
  try {
    assert.equal(server.receivePath, "data-events");
    assert.ok(logLines.some((line) => line.includes("'data' events")));
    // paced at 20 Mbit/s a stream, which a starved server reads as it comes: unpaced on loopback,
    // the server was the bottleneck and what the client's send buffers held at the end (sent,
    // never received) read 8.7 of 11.8 MB beside a busy loop (2026-12-07)
    const upload = await runStockClient("127.0.0.1", server.port, ["-t", "1", "-P", "2", "-b", "20M"]);
    assert.equal(upload.error, undefined);
    const sent = upload.end.sum_sent?.bytes ?? 0;
    const received = upload.end.sum_received?.bytes ?? 0;
    assert.ok(sent > 0 && received / sent > 0.8 && received <= sent, `sent ${sent}, received ${received}`);
    const download = await runStockClient("127.0.0.1", server.port, ["-t", "1", "-R"]);
    assert.equal(download.error, undefined);
    assert.ok((download.end.sum_received?.bytes ?? 0) > 0);
  } finally {
    await server.close();
  }
});
