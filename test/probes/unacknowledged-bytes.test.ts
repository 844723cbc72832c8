import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sumTxQueue, UnacknowledgedBytes } from "../../src/probes/unacknowledged-bytes.js";

// three rows of /proc/net/tcp: a listener, our connection (local 0xDC00 = 56320 to 0x1F90 = 8080)
// with 0x2000 bytes unacknowledged, another connection to 8080 from another local port
const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 567 1 0 100 0 0 10 0
   1: 0100007F:DC00 0100007F:1F90 01 00002000:00000010 01:00000014 00000000     0        0 8801 1 0 20 4 30 10 -1
   2: 0100007F:DC01 0100007F:1F90 01 00100000:00000000 01:00000014 00000000     0        0 8802 1 0 20 4 30 10 -1
`;

test("sumTxQueue: the tx_queue (hex) of the rows whose local and remote ports are tracked", () => {
  assert.equal(sumTxQueue(table, new Set(["DC00:1F90"])), 0x2000);
  assert.equal(sumTxQueue(table, new Set(["DC00:1F90", "DC01:1F90"])), 0x2000 + 0x100000);
  assert.equal(sumTxQueue(table, new Set(["1F90:DC00"])), 0, "ports are not swapped");
  assert.equal(sumTxQueue("", new Set(["DC00:1F90"])), 0);
});

test("UnacknowledgedBytes: null where the table cannot be read, 0 with nothing tracked", () => {
  const missing = new UnacknowledgedBytes({ ipv4: "/nonexistent/tcp", ipv6: "/nonexistent/tcp6" });
  assert.equal(missing.read(), 0, "nothing tracked: nothing to read");
  missing.track(56_320, 8_080, "127.0.0.1");
  assert.equal(missing.read(), null);
  assert.equal(missing.read(), null, "and from then on");
  assert.equal(missing.track(undefined, 8_080), false, "an unconnected socket is not tracked");
});

test("UnacknowledgedBytes reads the table of each connection's address family only", () => {
  const dir = mkdtempSync(join(tmpdir(), "lnb-txq-"));
  try {
    const ipv4 = join(dir, "tcp");
    const ipv6 = join(dir, "tcp6");
    writeFileSync(ipv4, table);
    writeFileSync(ipv6, table.replace("00002000", "00000100"));
    const v4 = new UnacknowledgedBytes({ ipv4, ipv6 });
    v4.track(0xdc00, 0x1f90, "127.0.0.1");
    assert.equal(v4.read(), 0x2000);
    const v6 = new UnacknowledgedBytes({ ipv4, ipv6 });
    v6.track(0xdc00, 0x1f90, "::ffff:127.0.0.1");
    assert.equal(v6.read(), 0x100, "an IPv4-mapped address is an IPv6 socket");
    const either = new UnacknowledgedBytes({ ipv4, ipv6 });
    either.track(0xdc00, 0x1f90);
    assert.equal(either.read(), 0x2000 + 0x100, "no address: both tables");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("UnacknowledgedBytes on a live loopback connection: what the peer has not taken, then 0", {
  skip: existsSync("/proc/net/tcp") ? false : "no /proc/net/tcp",
}, async () => {
  let peer: Socket | undefined;
  const server = createServer((socket) => {
    peer = socket;
    socket.pause(); // the receiver stops reading: its window closes, the sender's queue stays
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  const client = connect(port, "127.0.0.1");
  await once(client, "connect");
  try {
    const unacknowledged = new UnacknowledgedBytes();
    assert.ok(unacknowledged.track(client.localPort, client.remotePort, client.remoteAddress));
    const sentBytes = 32 * 1024 * 1024;
    client.write(Buffer.alloc(sentBytes));
    // the peer's receive buffer fills first; on a busy host that can take a while (the
    // whole-suite run read 0 after a fixed 200 ms)
    let held: number | null = 0;
    for (let waitedMs = 0; waitedMs < 3_000 && !(held !== null && held > 0); waitedMs += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      held = unacknowledged.read();
    }
    assert.ok(held !== null && held > 0, `bytes not acknowledged while the peer does not read: ${held}`);
    assert.ok(held <= sentBytes);
    // the peer reads everything: all acknowledged
    let received = 0;
    const done = new Promise<void>((resolve) => {
      peer?.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received === sentBytes) resolve();
      });
    });
    peer?.resume();
    await done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(unacknowledged.read(), 0);
  } finally {
    client.destroy();
    peer?.destroy();
    server.close();
  }
});
