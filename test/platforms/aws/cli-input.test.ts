import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { awsTestHooks } from "../../../src/cli/commands/aws-session.js";
import { buildProgram } from "../../../src/cli/main.js";
import { buildAgentZip, buildZip } from "../../../src/platforms/aws/agent-zip.js";
import { AwsInputError } from "../../../src/platforms/aws/aws-input.js";
import { resolveCredentials } from "../../../src/platforms/aws/credentials.js";
import { AwsStub, testCredentials } from "./aws-stub.js";

describe("bad input is refused before any AWS call", () => {
  const stub = new AwsStub();
  awsTestHooks.requestHandler = stub.handler;
  awsTestHooks.credentials = testCredentials;
  after(() => {
    delete awsTestHooks.requestHandler;
    delete awsTestHooks.credentials;
  });
  for (const [argv, field] of [
    [["deploy", "--region", "us-west-9"], "region"],
    [["deploy", "--region", "us-west-2", "--memory-mb", "10241"], "memory-mb"],
    [["deploy", "--region", "us-west-2", "--memory-mb", "127"], "memory-mb"],
    [["deploy", "--region", "us-west-2", "--arch", "riscv"], "arch"],
    [["deploy", "--region", "us-west-2", "--with-server", "--ttl-hours", "0"], "ttl-hours"],
    [["teardown", "--region", "mars-1"], "region"],
    [["quota", "get", "--regions", "us-west-2,nowhere-1"], "regions"],
    [["quota", "get"], "regions"],
    [["quota", "request", "--regions", "us-west-2", "--value", "3001"], "value"],
    [["quota", "request", "--regions", "us-west-2", "--value", "lots"], "value"],
  ] as const) {
    test(`${argv.join(" ")} -> error naming ${field}, zero requests`, async () => {
      await assert.rejects(
        buildProgram().parseAsync(["node", "lambda-netbench", ...argv]),
        (error: unknown) => {
          assert.ok(error instanceof AwsInputError, String(error));
          assert.equal(error.field, field);
          assert.match(error.message, /allowed|give/);
          return true;
        },
      );
      assert.equal(stub.requests.length, 0);
    });
  }

  test("missing credentials: a clear error naming credentials", async () => {
    await assert.rejects(
      resolveCredentials(async () => {
        throw new Error("Could not load credentials from any providers");
      }),
      (error: unknown) =>
        error instanceof AwsInputError && error.field === "credentials" && /AWS_PROFILE/.test(error.message),
    );
  });
});

describe("agent zip (Node zlib, checked by Debian's unzip)", () => {
  const dir = mkdtempSync(join(tmpdir(), "lnb-aws-zip-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  test("unzip -t accepts it and extracts index.mjs byte for byte, mode 0644", () => {
    const source = Buffer.from(
      `export const handler = async () => ({ ok: true });\n${"x".repeat(100_000)}\n`,
    );
    const zip = buildZip([{ name: "index.mjs", data: source }]);
    writeFileSync(join(dir, "agent.zip"), zip);
    const check = spawnSync("unzip", ["-t", join(dir, "agent.zip")]);
    assert.equal(check.status, 0, check.stdout.toString() + check.stderr.toString());
    assert.match(check.stdout.toString(), /testing: index\.mjs\s+OK/);
    const extracted = spawnSync("unzip", ["-p", join(dir, "agent.zip"), "index.mjs"]);
    assert.ok(extracted.stdout.equals(source));
    const listing = spawnSync("unzip", ["-Z", join(dir, "agent.zip")]).stdout.toString();
    assert.match(listing, /-rw-r--r--/);
    assert.ok(buildZip([{ name: "index.mjs", data: source }]).equals(zip), "reproducible bytes");
  });
});

describe("the deployment package from `npm run build`", () => {
  const dir = mkdtempSync(join(tmpdir(), "lnb-aws-bundle-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  test("unzipped alone, index.mjs exports a handler that answers an info event (as nodejs22.x loads it)", {
    skip: !existsSync("dist/agent/index.mjs") && "needs `npm run build`",
  }, () => {
    const { zip, sha256 } = buildAgentZip();
    assert.match(sha256, /^[0-9a-f]{64}$/);
    writeFileSync(join(dir, "agent.zip"), zip);
    assert.equal(spawnSync("unzip", ["-q", join(dir, "agent.zip"), "-d", join(dir, "task")]).status, 0);
    // only the unzipped file, in a directory without node_modules: what Lambda's /var/task holds
    const script =
      "const m = await import('./index.mjs'); const r = await m.handler({ probe: 'info' }); console.log(JSON.stringify(r));";
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(dir, "task"),
    });
    assert.equal(run.status, 0, run.stderr.toString());
    const response = JSON.parse(run.stdout.toString());
    assert.equal(response.ok, true);
    assert.equal(response.probe, "info");
  });
});
