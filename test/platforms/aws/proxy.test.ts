// Behind a corporate proxy: the real CLI (from source) against moto, with a forward proxy on
// loopback between them. The SDK v3 alone ignores HTTPS_PROXY; the CLI's AWS calls must go
// through the proxy (a CONNECT tunnel to an https endpoint, as AWS's are), and straight past it
// for a host NO_PROXY names.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createServer as createTlsServer } from "node:tls";
import { cliArgv } from "../../helpers/cli-process.js";
import { type ConnectProxy, startConnectProxy } from "../../helpers/connect-proxy.js";
import { freeLoopbackPort } from "../../helpers/free-port.js";
import { createTestTls, type TestTls } from "../../helpers/tls-ca.js";
import { type Front, startFront } from "../../rehearsal/aws-front.js";
import { BandwidthQuota } from "../../rehearsal/bandwidth-quota.js";
import { type MotoProcess, startMoto } from "../../rehearsal/moto-process.js";
import { INSTANCE_PUBLIC_ADDRESS, rehearsalSkip } from "../../rehearsal/rehearsal.js";
import { REHEARSAL_CREDENTIALS } from "../../rehearsal/rehearsal-credentials.js";
import { listeningPort, stopChild } from "../../rehearsal/relays.js";

const skip = rehearsalSkip("the proxy test");
const region = "us-west-2";
const account = "123456789012";

let dir: string;
let moto: MotoProcess;
let front: Front;
let tls: TestTls;
let tlsFront: Server;
let httpsUrl: string;
let proxy: ConnectProxy;

before(
  async () => {
    if (skip) return;
    dir = await mkdtemp(join(tmpdir(), "lnb-proxy-test-"));
    const port = await freeLoopbackPort();
    const motoUrl = `http://127.0.0.1:${port}`;
    moto = await startMoto({
      namespace: null,
      host: "127.0.0.1",
      port,
      probeUrl: motoUrl,
      logFile: join(dir, "moto.log"),
    });
    front = await startFront({
      motoUrl,
      quota: new BandwidthQuota(account),
      bridge: null,
      accountSettings: { concurrentExecutions: 1000, unreservedConcurrentExecutions: 1000 },
      publicAddress: INSTANCE_PUBLIC_ADDRESS,
      account,
      serverPrices: [],
    });
    // AWS's endpoints are https: TLS in front of the front, with a CA the CLI is told to trust
    tls = createTestTls(["127.0.0.1"]);
    const frontPort = Number(new URL(front.url).port);
    tlsFront = createTlsServer({ key: tls.key, cert: tls.cert }, (socket) => {
      const upstream = connect(frontPort, "127.0.0.1");
      socket.pipe(upstream).pipe(socket);
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => tlsFront.listen(0, "127.0.0.1", () => resolve()));
    httpsUrl = `https://127.0.0.1:${listeningPort(tlsFront)}`;
    proxy = await startConnectProxy();
  },
  { timeout: 120_000 },
);

after(async () => {
  if (skip) return;
  await proxy?.close();
  await new Promise((resolve) => (tlsFront ? tlsFront.close(resolve) : resolve(undefined)));
  await front?.close();
  if (moto) await stopChild(moto.child);
  tls?.remove();
  await rm(dir, { recursive: true, force: true });
});

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; all: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgv(args),
      {
        timeout: 90_000,
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          LANG: "C.UTF-8",
          AWS_ACCESS_KEY_ID: REHEARSAL_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: REHEARSAL_CREDENTIALS.secretAccessKey,
          AWS_CONFIG_FILE: join(dir, "aws-config"),
          AWS_SHARED_CREDENTIALS_FILE: join(dir, "aws-credentials"),
          AWS_EC2_METADATA_DISABLED: "true",
          NODE_EXTRA_CA_CERTS: tls.caPath,
          COLUMNS: "100",
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          all: `${stdout}\n${stderr}`,
        }),
    );
  });
}

const quotaGet = ["quota", "get", "--region", region];
const quotaLine = /us-west-2\s+625\s+625\s+code L-14320ECE/;
const tunnels = (seen: string[], host: string) => seen.filter((line) => line === `CONNECT ${host}`).length;

test("HTTPS_PROXY: every AWS call of the CLI goes through the proxy's CONNECT tunnel", {
  skip,
  timeout: 150_000,
}, async () => {
  const mark = proxy.seen.length;
  const seenBy = front.forwarded.length + front.answered.length;
  const result = await cli(quotaGet, { AWS_ENDPOINT_URL: httpsUrl, HTTPS_PROXY: proxy.url });
  assert.equal(result.code, 0, result.all);
  assert.match(result.all, quotaLine);
  const seen = proxy.seen.slice(mark);
  const host = new URL(httpsUrl).host;
  assert.ok(tunnels(seen, host) >= 1, `the proxy saw: ${JSON.stringify(seen)}\n${result.all}`);
  assert.deepEqual(
    seen.filter((line) => !line.startsWith("CONNECT ")),
    [],
    "https calls travel in tunnels only",
  );
  // the calls themselves reached AWS's side (the front) through the tunnel
  assert.ok(front.forwarded.length + front.answered.length > seenBy);
});

test("lower-case https_proxy as curl reads it; NO_PROXY's host goes direct", {
  skip,
  timeout: 150_000,
}, async () => {
  const host = new URL(httpsUrl).host;
  const lower = proxy.seen.length;
  const viaLower = await cli(quotaGet, { AWS_ENDPOINT_URL: httpsUrl, https_proxy: proxy.url });
  assert.equal(viaLower.code, 0, viaLower.all);
  assert.ok(tunnels(proxy.seen.slice(lower), host) >= 1, viaLower.all);

  const mark = proxy.seen.length;
  const direct = await cli(quotaGet, {
    AWS_ENDPOINT_URL: httpsUrl,
    HTTPS_PROXY: proxy.url,
    NO_PROXY: "localhost,127.0.0.1",
  });
  assert.equal(direct.code, 0, direct.all);
  assert.match(direct.all, quotaLine);
  assert.deepEqual(proxy.seen.slice(mark), [], "nothing through the proxy for a NO_PROXY host");
});

test("HTTP_PROXY for an http endpoint (AWS_ENDPOINT_URL=http://...): absolute-form requests", {
  skip,
  timeout: 150_000,
}, async () => {
  const mark = proxy.seen.length;
  const result = await cli(quotaGet, { AWS_ENDPOINT_URL: front.url, HTTP_PROXY: proxy.url });
  assert.equal(result.code, 0, `${result.all}\nthe proxy saw: ${JSON.stringify(proxy.seen.slice(mark))}`);
  assert.match(result.all, quotaLine);
  const seen = proxy.seen.slice(mark);
  assert.ok(seen.length >= 1, "the calls went through the proxy");
  assert.deepEqual(
    seen.filter((line) => !line.startsWith(`POST ${front.url}/`)),
    [],
    "every call in the absolute form, to the endpoint",
  );
});

test("a proxy that refuses: the CLI fails instead of going around it", {
  skip,
  timeout: 150_000,
}, async () => {
  // a port where nothing listens, as a proxy that is down
  const deadProxy = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const result = await cli(quotaGet, { AWS_ENDPOINT_URL: httpsUrl, HTTPS_PROXY: deadProxy });
  assert.notEqual(result.code, 0, result.all);
  assert.match(result.all, /ECONNREFUSED/);
});
