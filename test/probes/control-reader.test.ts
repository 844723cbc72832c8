import assert from "node:assert/strict";
import { connect, createServer, type Socket } from "node:net";
import { test } from "node:test";
import {
  ControlReader,
  encodeJson,
  isControlReadError,
  makeCookie,
  normalizeCount,
} from "../../src/probes/iperf3/protocol.js";

async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as { port: number }).port;
  const accepted = new Promise<Socket>((resolve) => listener.once("connection", resolve));
  const client = connect(port, "127.0.0.1");
  const server = await accepted;
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

test("cookies are 36 base32 characters and a NUL", () => {
  const cookie = makeCookie();
  assert.equal(cookie.length, 37);
  assert.match(cookie.subarray(0, 36).toString("latin1"), /^[a-z2-7]{36}$/);
  assert.equal(cookie[36], 0);
});

test("3.12's unsigned -1 reads as -1", () => {
  assert.equal(normalizeCount(JSON.parse("18446744073709551615")), -1);
  assert.equal(normalizeCount(12), 12);
});

test("states and JSON split across and sharing reads are framed correctly", async () => {
  const { client, server, close } = await socketPair();
  try {
    const reader = new ControlReader(client, "test peer");
    const frame = Buffer.concat([Buffer.from([9]), encodeJson({ a: 1 }), Buffer.from([14])]);
    server.write(frame.subarray(0, 3));
    setTimeout(() => server.write(frame.subarray(3)), 20);
    assert.equal(await reader.readState(), 9);
    assert.deepEqual(await reader.readJson(100), { a: 1 });
    assert.equal(await reader.readState(), 14);
  } finally {
    close();
  }
});

test("a huge JSON length is refused before any allocation", async () => {
  const { client, server, close } = await socketPair();
  try {
    const reader = new ControlReader(client, "test peer");
    server.write(Buffer.from([0xff, 0xff, 0xff, 0xf0]));
    await assert.rejects(reader.readJson(8192), /JSON length of 4294967280 bytes \(allowed 1\.\.8192\)/);
  } finally {
    close();
  }
});

test("a peer closing mid-exchange fails the read", async () => {
  const { client, server, close } = await socketPair();
  try {
    const reader = new ControlReader(client, "test peer");
    server.end(Buffer.from([0, 0, 0, 10, 0x7b]));
    await assert.rejects(reader.readJson(100), /closed the control connection/);
  } finally {
    close();
  }
});

test("failures carry a typed reason: eof, malformed, overflow", async () => {
  const cases: Array<{ reason: "eof" | "malformed" | "overflow"; send: Buffer; end: boolean; max?: number }> =
    [
      { reason: "eof", send: Buffer.from([0, 0]), end: true },
      { reason: "malformed", send: Buffer.from([0, 0, 0, 0]), end: false },
      {
        reason: "malformed",
        send: Buffer.concat([Buffer.from([0, 0, 0, 2]), Buffer.from("{x")]),
        end: false,
      },
      { reason: "overflow", send: Buffer.alloc(200, 1), end: false, max: 100 },
    ];
  for (const { reason, send, end, max } of cases) {
    const { client, server, close } = await socketPair();
    try {
      const reader = new ControlReader(client, "test peer", max);
      if (reason === "overflow") {
        server.write(send);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } else if (end) server.end(send);
      else server.write(send);
      await assert.rejects(
        reason === "overflow" ? reader.readExact(1_000) : reader.readJson(100),
        (error: unknown) => {
          assert.ok(isControlReadError(error, reason), `${reason}: ${String(error)}`);
          return true;
        },
      );
    } finally {
      close();
    }
  }
});
