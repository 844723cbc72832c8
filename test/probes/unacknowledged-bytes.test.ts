import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  AcknowledgedTotal,
  type QueueDirection,
  sumQueues,
  UnacknowledgedBytes,
} from "../../src/probes/unacknowledged-bytes.js";

// three rows of /proc/net/tcp: a listener, our connection (local 0xDC00 = 56320 to 0x1F90 = 8080)
// with 0x2000 bytes unacknowledged, another connection to 8080 from another local port
const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 567 1 0 100 0 0 10 0
   1: 0100007F:DC00 0100007F:1F90 01 00002000:00000010 01:00000014 00000000     0        0 8801 1 0 20 4 30 10 -1
   2: 0100007F:DC01 0100007F:1F90 01 00100000:00000000 01:00000014 00000000     0        0 8802 1 0 20 4 30 10 -1
`;

function sending(...keys: string[]): Map<string, QueueDirection> {
  return new Map(keys.map((key) => [key, "sending"]));
}

test("sumQueues: the tx_queue (hex) of the sending rows whose local and remote ports are tracked", () => {
  assert.equal(sumQueues(table, sending("DC00:1F90")).unacknowledged, 0x2000);
  assert.equal(sumQueues(table, sending("DC00:1F90", "DC01:1F90")).unacknowledged, 0x2000 + 0x100000);
  assert.equal(sumQueues(table, sending("1F90:DC00")).unacknowledged, 0, "ports are not swapped");
  assert.equal(sumQueues("", sending("DC00:1F90")).unacknowledged, 0);
});

test("sumQueues: the rx_queue (hex) of the receiving rows, apart from the sending rows' tx_queue", () => {
  const byConnection = new Map<string, number>();
  const keys = new Map<string, QueueDirection>([
    ["DC00:1F90", "receiving"],
    ["DC01:1F90", "sending"],
  ]);
  assert.deepEqual(sumQueues(table, keys, byConnection), { unacknowledged: 0x100000, unread: 0x10 });
  assert.equal(byConnection.get("DC00:1F90"), 0x10, "a receiving connection's figure is its unread bytes");
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

/**
 * `work` on a table file holding `table`, one connection (0xDC00 to 0x1F90) tracked, reads reused
 * for a minute: every read after the first is a reused one until track() or a fresh read.
 */
function withTable(work: (ipv4: string, unacknowledged: UnacknowledgedBytes) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "lnb-txq-"));
  try {
    const ipv4 = join(dir, "tcp");
    writeFileSync(ipv4, table);
    const unacknowledged = new UnacknowledgedBytes({ ipv4, ipv6: join(dir, "tcp6") }, 60_000);
    unacknowledged.track(0xdc00, 0x1f90, "127.0.0.1");
    work(ipv4, unacknowledged);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("AcknowledgedTotal: what was sent since a reused table read counts at the next read; received bytes at once", () => {
  withTable((ipv4, unacknowledged) => {
    let sent = 100_000;
    let received = 0;
    const acknowledged = new AcknowledgedTotal(
      unacknowledged,
      () => sent,
      () => received,
    );
    assert.equal(acknowledged.total(), 100_000 - 0x2000);
    sent = 600_000;
    received = 500;
    assert.equal(
      acknowledged.total(),
      100_000 - 0x2000 + 500,
      "the reused read knows nothing of the 500,000 bytes sent since: still in the send buffer",
    );
    writeFileSync(ipv4, table.replace("00002000", "00001000"));
    unacknowledged.track(0xdc00, 0x1f90, "127.0.0.1"); // a new connection: the next read is fresh
    assert.equal(acknowledged.total(), 600_000 - 0x1000 + 500);
    sent = 700_000;
    acknowledged.reset();
    assert.equal(
      acknowledged.total(),
      700_000 - 0x1000 + 500,
      "after a reset the next total reads sent afresh",
    );
  });
});

test("AcknowledgedTotal with a receiving connection: what arrived (read, and unread in the kernel at the table read)", () => {
  withTable((ipv4, unacknowledged) => {
    // the second connection has a megabyte arrived and not read
    writeFileSync(ipv4, table.replace("00100000:00000000", "00000000:00100000"));
    unacknowledged.track(0xdc01, 0x1f90, "127.0.0.1", "receiving");
    let received = 1_000;
    const arrived = new AcknowledgedTotal(
      unacknowledged,
      () => 0x2000,
      () => received,
    );
    assert.equal(arrived.total(), 0 + 1_000 + 0x100000, "the unread megabyte arrived");
    received = 1_000 + 0x80000;
    assert.equal(
      arrived.total(),
      1_000 + 0x100000,
      "a read since the (reused) table read took bytes that table already held unread: not twice",
    );
    writeFileSync(ipv4, table.replace("00100000:00000000", "00000000:00080000"));
    unacknowledged.track(0xdc01, 0x1f90, "127.0.0.1", "receiving"); // the next read is fresh
    assert.equal(arrived.total(), 1_000 + 0x80000 + 0x80000);
  });
});

test("AcknowledgedTotal where the table cannot be read: what was sent, as it grows", () => {
  const unacknowledged = new UnacknowledgedBytes({ ipv4: "/nonexistent/tcp", ipv6: "/nonexistent/tcp6" });
  unacknowledged.track(56_320, 8_080, "127.0.0.1");
  let sent = 1_000;
  const acknowledged = new AcknowledgedTotal(unacknowledged, () => sent);
  assert.equal(acknowledged.total(), 1_000);
  sent = 5_000;
  assert.equal(acknowledged.total(), 5_000);
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

test("an interval's close reads the table afresh and says when: the figure is true at that read", () => {
  withTable((ipv4, unacknowledged) => {
    let sent = 100_000;
    const acknowledged = new AcknowledgedTotal(unacknowledged, () => sent);
    const beforeMs = performance.now();
    assert.equal(acknowledged.read(false), 100_000 - 0x2000);
    const firstReadMs = acknowledged.takenAtMs() as number;
    assert.ok(firstReadMs >= beforeMs && firstReadMs <= performance.now());
    sent = 200_000;
    writeFileSync(ipv4, table.replace("00002000", "00001000"));
    assert.equal(acknowledged.read(false), 100_000 - 0x2000, "reused: as of the first read");
    assert.equal(acknowledged.takenAtMs(), firstReadMs, "and true when that read was");
    assert.equal(acknowledged.read(true), 200_000 - 0x1000, "fresh: read now");
    assert.ok((acknowledged.takenAtMs() as number) > firstReadMs);
  });
});
