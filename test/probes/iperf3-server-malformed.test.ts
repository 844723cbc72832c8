import assert from "node:assert/strict";
import { constants, generateKeyPairSync, publicEncrypt } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { type Iperf3Server, startIperf3Server } from "../../src/probes/iperf3/server.js";
import { passwordHash } from "../../src/probes/iperf3/server-auth.js";
import { jsonFrame, RawPeer, runStockClient, TCP_PARAMS } from "./iperf3-support/stock-client.js";

// Hostile and broken clients: after each, the server must still serve a stock client.
let server: Iperf3Server;
const logLines: string[] = [];
const COOKIE = Buffer.from(`${"a".repeat(36)}\0`, "latin1");

before(async () => {
  server = await startIperf3Server({ port: 0, host: "127.0.0.1", log: (line) => logLines.push(line) });
});
after(async () => {
  await server.close();
});

async function assertStillServes(): Promise<void> {
  const report = await runStockClient("127.0.0.1", server.port, ["-t", "1"]);
  assert.equal(report.error, undefined, `stock client after the bad one: ${report.error}`);
  assert.ok((report.end.sum_received?.bytes ?? 0) > 0);
}

/** Cookie, then whatever `afterCookie` holds; returns what the server answered before closing. */
async function exchange(afterCookie: Buffer): Promise<Buffer> {
  const peer = await RawPeer.open(server.port);
  try {
    peer.write(Buffer.concat([COOKIE, afterCookie]));
    assert.ok(await peer.waitClosed(5_000), "the server did not close the connection");
    return peer.bytes;
  } finally {
    peer.destroy();
  }
}

/** 09 (PARAM_EXCHANGE), then FE + int32 code + int32 errno. */
function assertServerError(answer: Buffer, code: number): void {
  assert.equal(answer[0], 9, `answer ${answer.toString("hex")}`);
  assert.equal(answer[1], 0xfe, `answer ${answer.toString("hex")}`);
  assert.equal(answer.length, 10);
  assert.equal(answer.readInt32BE(2), code);
}

test("garbage bytes: the length prefix is refused with SERVER_ERROR 114", async () => {
  const garbage = Buffer.alloc(200, 0xab);
  assertServerError(await exchange(garbage), 114);
  await assertStillServes();
});

test("a 4 GiB JSON length is refused before any allocation", async () => {
  const before = process.memoryUsage().rss;
  assertServerError(await exchange(Buffer.from([0xff, 0xff, 0xff, 0xff])), 114);
  assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024);
  await assertStillServes();
});

test("parameters over 8 KiB are refused (114)", async () => {
  const params = jsonFrame({ ...TCP_PARAMS, extra_data: "x".repeat(9000) });
  assertServerError(await exchange(params), 114);
});

test("parameters that are not JSON, or not an object, are refused (114)", async () => {
  const notJson = Buffer.from("{not json");
  const frame = Buffer.concat([Buffer.from([0, 0, 0, notJson.length]), notJson]);
  assertServerError(await exchange(frame), 114);
  assertServerError(await exchange(jsonFrame([1, 2, 3])), 114);
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, parallel: "4" })), 114);
});

test("out-of-range parameters get the stock error codes", async () => {
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, parallel: 0 })), 6);
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, parallel: 129 })), 6);
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, len: 2 * 1024 * 1024 })), 7);
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, time: -1 })), 5);
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, omit: 601 })), 12);
  assertServerError(await exchange(jsonFrame({ ...TCP_PARAMS, tcp: undefined, udp: true })), 13);
  await assertStillServes();
});

test("a client closing mid-exchange leaves the server idle again", async () => {
  const peer = await RawPeer.open(server.port);
  const params = jsonFrame(TCP_PARAMS);
  peer.write(Buffer.concat([COOKIE, params.subarray(0, 20)]));
  await peer.waitFor(1);
  peer.destroy();
  const half = await RawPeer.open(server.port);
  half.write(COOKIE.subarray(0, 10));
  half.destroy();
  await assertStillServes();
});

test("a silent connection neither blocks other clients nor stays forever", async () => {
  const silent = await RawPeer.open(server.port);
  try {
    await assertStillServes();
    assert.ok(await silent.waitClosed(12_000), "silent connection still open after 12 s");
  } finally {
    silent.destroy();
  }
});

test("a wrong data-stream cookie gets 0xFF; the right one is then accepted", async () => {
  const control = await RawPeer.open(server.port);
  const streams: RawPeer[] = [];
  try {
    control.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, time: 1 })]));
    assert.deepEqual([...(await control.waitFor(2))], [9, 10]);
    const wrong = await RawPeer.open(server.port);
    streams.push(wrong);
    wrong.write(Buffer.from(`${"b".repeat(36)}\0`, "latin1"));
    assert.ok(await wrong.waitClosed());
    assert.deepEqual([...wrong.bytes], [0xff]);
    const right = await RawPeer.open(server.port);
    streams.push(right);
    right.write(COOKIE);
    assert.deepEqual([...(await control.waitFor(4))], [9, 10, 1, 2]);
    right.write(Buffer.alloc(1_000_000));
    // an unknown state byte during the test: SERVER_ERROR 110 (IEMESSAGE), then close
    control.write([0x55]);
    assert.ok(await control.waitClosed());
    assert.equal(control.bytes[4], 0xfe);
    assert.equal(control.bytes.readInt32BE(5), 110);
  } finally {
    control.destroy();
    for (const stream of streams) stream.destroy();
  }
  await assertStillServes();
});

test("CLIENT_TERMINATE mid-test ends the test and frees the server", async () => {
  const control = await RawPeer.open(server.port);
  try {
    control.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, time: 10, reverse: true })]));
    await control.waitFor(2);
    const data = await RawPeer.open(server.port);
    try {
      data.write(COOKIE);
      await control.waitFor(4);
      await data.waitFor(100_000);
      assert.ok(data.bytes.length >= 100_000, "our server did not send in reverse mode");
      control.write([12]);
      assert.ok(await control.waitClosed());
      assert.ok(await data.waitClosed());
    } finally {
      data.destroy();
    }
  } finally {
    control.destroy();
  }
  assert.ok(logLines.some((line) => /interrupted by the client/.test(line)));
  await assertStillServes();
});

test("authentication: an OAEP token with the right password is accepted, wrong ones refused (142)", async () => {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const authServer = await startIperf3Server({
    port: 0,
    host: "127.0.0.1",
    auth: {
      privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      users: new Map([["mario", passwordHash("mario", "rossi")]]),
    },
  });
  const token = (
    user: string,
    password: string,
    skewSeconds = 0,
    padding = constants.RSA_PKCS1_OAEP_PADDING,
  ) =>
    publicEncrypt(
      { key: publicKeyPem, padding, oaepHash: "sha1" },
      Buffer.from(`user: ${user}\npwd:  ${password}\nts:   ${Math.floor(Date.now() / 1000) + skewSeconds}`),
    ).toString("base64");
  const attempt = async (authtoken: string | undefined): Promise<Buffer> => {
    const peer = await RawPeer.open(authServer.port);
    try {
      peer.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, ...(authtoken ? { authtoken } : {}) })]));
      await peer.waitFor(2);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return peer.bytes;
    } finally {
      peer.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    assert.deepEqual([...(await attempt(token("mario", "rossi")))], [9, 10]);
    assert.deepEqual([...(await attempt(token("mario", "rossi", 8)))], [9, 10]);
    // each token made just before its attempt, the skewed one far past the 10 s allowed: made all
    // at once, the 12 s one was tested 2 s later at nice 19 beside a busy loop and accepted
    for (const bad of [
      () => token("mario", "wrong"),
      () => token("luigi", "rossi"),
      () => token("mario", "rossi", 60),
      () => token("mario", "rossi", 0, constants.RSA_PKCS1_PADDING),
      () => "bm90IGEgdG9rZW4=",
      () => undefined,
    ]) {
      const answer = await attempt(bad());
      assert.equal(answer[1], 0xfe, `answer ${answer.toString("hex")}`);
      assert.equal(answer.readInt32BE(2), 142);
    }
    // the stock 3.12 client can only send PKCS#1 v1.5 tokens, which Node cannot decrypt: refused clearly
    const keyPath = join(mkdtempSync(join(tmpdir(), "lnbs-auth-")), "public.pem");
    writeFileSync(keyPath, publicKeyPem);
    const stock = await runStockClient(
      "127.0.0.1",
      authServer.port,
      ["-t", "1", "--username", "mario", "--rsa-public-key-path", keyPath],
      { env: { IPERF3_PASSWORD: "rossi" } },
    );
    assert.match(stock.error ?? "", /test authorization failed/);
    rmSync(dirname(keyPath), { recursive: true, force: true });
  } finally {
    await authServer.close();
  }
});

test("watchdogs: no TEST_END, missing streams, no data, vanished client - the server frees itself", async () => {
  const lines: string[] = [];
  const guarded = await startIperf3Server({
    port: 0,
    host: "127.0.0.1",
    log: (line) => lines.push(line),
    timeouts: { watchdogMarginSeconds: 0.5, streamsMs: 1000, idleMs: 2500 },
  });
  const peers: RawPeer[] = [];
  const open = async () => {
    const peer = await RawPeer.open(guarded.port);
    peers.push(peer);
    return peer;
  };
  try {
    // 1. time 1 and no TEST_END: SERVER_ERROR 160 after time + omit + margin (1.5 s, before the idle watchdog)
    const silent = await open();
    silent.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, time: 1 })]));
    await silent.waitFor(2);
    const data = await open();
    data.write(COOKIE);
    await silent.waitFor(4);
    data.write(Buffer.alloc(100_000));
    const started = Date.now();
    assert.ok(await silent.waitClosed(6_000));
    assert.ok(Date.now() - started >= 1000, "the watchdog fired too early");
    assert.equal(silent.bytes[4], 0xfe);
    assert.equal(silent.bytes.readInt32BE(5), 160);

    // 2. only 1 of 2 streams connects
    const short = await open();
    short.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, parallel: 2 })]));
    await short.waitFor(2);
    (await open()).write(COOKIE);
    assert.ok(await short.waitClosed(4_000));
    assert.ok(lines.some((line) => /only 1 of 2 data streams connected/.test(line)));

    // 3. a byte-limited test (time 0) in which nothing moves
    const idle = await open();
    idle.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, time: 0, num: 1_000_000 })]));
    await idle.waitFor(2);
    (await open()).write(COOKIE);
    assert.ok(await idle.waitClosed(8_000));
    assert.ok(lines.some((line) => /no data moved/.test(line)));

    // 4. the client vanishes mid-test: the next client is served at once, not told "busy"
    const vanishing = await open();
    vanishing.write(Buffer.concat([COOKIE, jsonFrame({ ...TCP_PARAMS, time: 30 })]));
    await vanishing.waitFor(2);
    const stream = await open();
    stream.write(COOKIE);
    await vanishing.waitFor(4);
    vanishing.destroy();
    stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const report = await runStockClient("127.0.0.1", guarded.port, ["-t", "1"]);
    assert.equal(report.error, undefined);
  } finally {
    for (const peer of peers) peer.destroy();
    await guarded.close();
  }
});
