import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { authPlaintext } from "../../src/probes/iperf3/auth-token.js";
import { type Iperf3ClientOptions, runIperf3Client } from "../../src/probes/iperf3/client.js";
import { isProbeError } from "../../src/probes/probe-error.js";
import { loopbackClientOptions } from "./iperf3-support/client-options.js";
import { type StockServer, startStockServer } from "./iperf3-support/stock-server.js";

/** RSA authentication against the stock 3.12 server (PKCS#1 v1.5 only on 3.12). */
let server: StockServer;
let directory: string;
let publicKeyPem: string;

before(async () => {
  directory = mkdtempSync(join(tmpdir(), "lnbc-auth-"));
  const privatePath = join(directory, "private.pem");
  const publicPath = join(directory, "public.pem");
  execFileSync("openssl", ["genrsa", "-out", privatePath, "2048"], { stdio: "ignore" });
  execFileSync("openssl", ["rsa", "-in", privatePath, "-pubout", "-out", publicPath], { stdio: "ignore" });
  publicKeyPem = readFileSync(publicPath, "utf8");
  const hash = createHash("sha256").update("{mario}rossi").digest("hex");
  writeFileSync(join(directory, "users.csv"), `# users\nmario,${hash}\n`);
  server = await startStockServer({
    bindAddress: "127.0.0.1",
    extraArgs: [
      "--rsa-private-key-path",
      privatePath,
      "--authorized-users-path",
      join(directory, "users.csv"),
    ],
  });
});
// each test starts once the server has ended the last: before, it answers ACCESS_DENIED (busy)
beforeEach(async () => {
  await server?.idle();
});
after(async () => {
  await server?.stop();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

function options(auth: Iperf3ClientOptions["auth"]): Iperf3ClientOptions {
  return loopbackClientOptions(server.port, { auth });
}

describe("iperf3 RSA authentication against stock iperf3 3.12", () => {
  test("the token plaintext has the server's exact spacing", () => {
    assert.equal(authPlaintext("mario", "rossi", 1795976643), "user: mario\npwd:  rossi\nts:   1795976643");
  });

  test("right credentials with PKCS#1 v1.5 padding: the test runs", async () => {
    const result = await runIperf3Client(
      options({ username: "mario", password: "rossi", publicKeyPem, padding: "pkcs1" }),
    );
    assert.ok(result.report.end.sum_received.bytes > 0);
  });

  test("a wrong password is rejected with auth-failed", async () => {
    await assert.rejects(
      runIperf3Client(options({ username: "mario", password: "luigi", publicKeyPem, padding: "pkcs1" })),
      (error: unknown) => {
        assert.ok(isProbeError(error), String(error));
        assert.equal(error.kind, "auth-failed");
        assert.match(error.message, /IEAUTHTEST \(142\)/);
        return true;
      },
    );
  });

  test("OAEP padding to a 3.12 server is rejected with auth-failed naming the padding", async () => {
    await assert.rejects(
      runIperf3Client(options({ username: "mario", password: "rossi", publicKeyPem, padding: "oaep" })),
      (error: unknown) => {
        assert.ok(isProbeError(error));
        assert.equal(error.kind, "auth-failed");
        assert.match(error.message, /padding/);
        return true;
      },
    );
  });

  test("no token at all to an authenticating server is a clear error", async () => {
    await assert.rejects(runIperf3Client(options(undefined)), (error: unknown) => {
      assert.ok(isProbeError(error));
      assert.equal(error.kind, "auth-failed");
      return true;
    });
  });
});
