import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import { dechunk, Http1Connection, parseHead } from "../../src/probes/s3/http1-connection.js";
import { resolveObjectAddress } from "../../src/probes/s3/s3-address.js";

// A raw TCP server that answers each request with the next scripted byte sequence(s),
// to drive the download connection through what real servers do on the wire.
let server: net.Server;
let port = 0;
let script: Array<Array<string | Buffer>> = [];
let connectionsSeen = 0;

before(async () => {
  server = net.createServer((socket) => {
    connectionsSeen += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", async (data) => {
      if (!data.includes("\r\n\r\n")) return;
      const pieces = script.shift() ?? [];
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function connection(timeoutMs = 2_000): Http1Connection {
  const address = resolveObjectAddress({
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    bucket: "bbb",
    key: "k",
    pathStyle: true,
  });
  return new Http1Connection(address, undefined, timeoutMs);
}

function counter() {
  let bytes = 0;
  return {
    handlers: {
      onHead: () => true,
      onBodyBytes: (length: number) => {
        bytes += length;
      },
    },
    bytes: () => bytes,
  };
}

test("a response head split across packets, then the body counted; the connection is reused", async () => {
  connectionsSeen = 0;
  script = [
    [
      "HTTP/1.1 206 Partial Content\r\nContent-Ra",
      "nge: bytes 0-9/10\r\nContent-Length: 10\r\n\r\n01234",
      "56789",
    ],
    ["HTTP/1.1 206 Partial Content\r\nContent-Length: 3\r\n\r\nabc"],
  ];
  const conn = connection();
  const first = counter();
  const result = await conn.get("/bbb/k", { host: "x" }, first.handlers);
  assert.equal(result.head.status, 206);
  assert.equal(result.head.headers["content-range"], "bytes 0-9/10");
  assert.equal(result.errorBody, null);
  assert.equal(first.bytes(), 10);
  const second = counter();
  await conn.get("/bbb/k", { host: "x" }, second.handlers);
  assert.equal(second.bytes(), 3);
  assert.equal(connectionsSeen, 1, "keep-alive");
  conn.destroy();
});

test("a chunked error document is read whole and decoded; the connection is then closed", async () => {
  connectionsSeen = 0;
  const xml = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
  script = [
    [
      `HTTP/1.1 503 Slow Down\r\nTransfer-Encoding: chunked\r\n\r\n${(10).toString(16)}\r\n${xml.slice(0, 10)}\r\n`,
      `${(xml.length - 10).toString(16)}\r\n${xml.slice(10)}\r\n0\r\n\r\n`,
    ],
    ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"],
  ];
  const conn = connection();
  const result = await conn.get(
    "/bbb/k",
    {},
    { onHead: () => false, onBodyBytes: () => assert.fail("not counted") },
  );
  assert.equal(result.head.status, 503);
  assert.equal(result.errorBody?.toString(), xml);
  const next = counter();
  await conn.get("/bbb/k", {}, next.handlers);
  assert.equal(next.bytes(), 2);
  assert.equal(connectionsSeen, 2, "a new connection after the chunked answer");
  conn.destroy();
});

test("a body shorter than Content-Length fails with the bytes counted so far", async () => {
  script = [["HTTP/1.1 206 Partial Content\r\nContent-Length: 100\r\n\r\n0123456789"]];
  const conn = connection();
  const c = counter();
  const pending = conn.get("/bbb/k", {}, c.handlers);
  // the server closes the connection after 10 bytes
  setTimeout(() => {
    for (const socket of openSockets()) socket.end();
  }, 100);
  await assert.rejects(pending, /closed by the server/);
  assert.equal(c.bytes(), 10);
});

test("more bytes than Content-Length is an error, and a silent server times out", async () => {
  script = [["HTTP/1.1 206 Partial Content\r\nContent-Length: 2\r\n\r\nabcdef"]];
  const conn = connection();
  await assert.rejects(conn.get("/bbb/k", {}, counter().handlers), /more than Content-Length/);
  script = [["HTTP/1.1 206 Partial Content\r\nContent-Length: 5\r\n\r\nab"]];
  const slow = connection(300);
  const startMs = performance.now();
  await assert.rejects(slow.get("/bbb/k", {}, counter().handlers), /no data for 300 ms/);
  // a generous bound: a nice-19 test process may wait seconds for its turn; no timeout never ends
  assert.ok(performance.now() - startMs < 20_000, "the 300 ms idle timeout did not end the read");
});

test("head parsing and chunk decoding", () => {
  assert.deepEqual(parseHead('HTTP/1.1 412 Precondition Failed\r\nETag: "x"\r\nX-Amz-Id: a:b'), {
    status: 412,
    headers: { etag: '"x"', "x-amz-id": "a:b" },
  });
  assert.throws(() => parseHead("SSH-2.0-OpenSSH"), /not an HTTP\/1.1 response/);
  assert.equal(dechunk(Buffer.from("3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")).toString(), "abcde");
});

const sockets = new Set<net.Socket>();
function openSockets(): net.Socket[] {
  return [...sockets];
}
