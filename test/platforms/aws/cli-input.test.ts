import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { buildAgentZip, buildZip } from "../../../src/platforms/aws/agent-zip.js";
import { AwsInputError } from "../../../src/platforms/aws/aws-input.js";
import { resolveCredentials } from "../../../src/platforms/aws/credentials.js";
import { defaultRegion, profileRegion } from "../../../src/platforms/aws/default-region.js";
import { AwsStub, stubbedCli } from "./aws-stub.js";

describe("bad input is refused before any AWS call", () => {
  const stub = new AwsStub();
  const run = stubbedCli(stub);
  for (const [argv, field] of [
    [["deploy", "--region", "us-west-9"], "region"],
    [["deploy", "--region", "us-west-2", "--memory-mb", "10241"], "memory-mb"],
    [["deploy", "--region", "us-west-2", "--memory-mb", "127"], "memory-mb"],
    [["deploy", "--region", "us-west-2", "--arch", "riscv"], "arch"],
    [["deploy", "--region", "us-west-2", "--with-server", "--ttl-hours", "0"], "ttl-hours"],
    [["teardown", "--region", "mars-1"], "region"],
    [["quota", "get", "--regions", "us-west-2,nowhere-1"], "regions"],
    [["quota", "request", "--regions", "us-west-2", "--value", "3001"], "value"],
    [["quota", "request", "--regions", "us-west-2", "--value", "lots"], "value"],
  ] as const) {
    test(`${argv.join(" ")} -> error naming ${field}, zero requests`, async () => {
      await assert.rejects(run(...argv), (error: unknown) => {
        assert.ok(error instanceof AwsInputError, String(error));
        assert.equal(error.field, field);
        assert.match(error.message, /allowed|give/);
        return true;
      });
      assert.equal(stub.requests.length, 0);
    });
  }

  test("missing credentials: a clear error naming credentials", async () => {
    await assert.rejects(
      resolveCredentials(undefined, async () => {
        throw new Error("Could not load credentials from any providers");
      }),
      (error: unknown) =>
        error instanceof AwsInputError && error.field === "credentials" && /AWS_PROFILE/.test(error.message),
    );
  });
});

describe("AWS conventions: --profile on every AWS command, --region from the environment or the profile", () => {
  const stub = new AwsStub();
  const saved = { ...process.env };
  const dir = mkdtempSync(join(tmpdir(), "lnb-aws-config-"));
  const config = join(dir, "config");
  writeFileSync(
    config,
    "[default]\nregion = eu-west-1\n\n[profile bench]\n# the study's account\nregion = ap-south-9\noutput = json\n",
  );
  const restore = () => {
    for (const key of ["AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_CONFIG_FILE"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  };
  const run = stubbedCli(stub);
  after(() => {
    restore();
    rmSync(dir, { recursive: true, force: true });
  });
  const refused = async (argv: string[], field: string, message: RegExp) => {
    await assert.rejects(run(...argv), (error: unknown) => {
      assert.ok(error instanceof AwsInputError, String(error));
      assert.equal(error.field, field);
      assert.match(error.message, message);
      return true;
    });
    assert.equal(stub.requests.length, 0, "refused before any call");
  };

  test("the default region: AWS_REGION, then AWS_DEFAULT_REGION, then the profile's region", () => {
    const text = "[default]\nregion=eu-west-1\n[profile bench]\nregion = ap-northeast-1\n";
    assert.equal(profileRegion(text, "default"), "eu-west-1");
    assert.equal(profileRegion(text, "bench"), "ap-northeast-1");
    assert.equal(profileRegion(text, "other"), null);
    const read = () => text;
    assert.deepEqual(defaultRegion({ AWS_REGION: "us-west-2", AWS_DEFAULT_REGION: "us-east-1" }, read), {
      region: "us-west-2",
      source: "AWS_REGION",
    });
    assert.equal(defaultRegion({ AWS_DEFAULT_REGION: "us-east-1" }, read)?.region, "us-east-1");
    assert.equal(defaultRegion({ AWS_PROFILE: "bench" }, read)?.region, "ap-northeast-1");
    assert.equal(
      defaultRegion({}, () => null),
      null,
    );
  });

  test("--profile picks the profile (its region here, which is unknown: refused naming where it came from)", async () => {
    restore();
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    process.env.AWS_CONFIG_FILE = config;
    delete process.env.AWS_PROFILE;
    for (const argv of [
      ["schedule", "list", "--profile", "bench"],
      ["teardown", "--profile", "bench"],
      ["runs", "pull", "--profile", "bench"],
      ["quota", "get", "--profile", "bench"],
    ])
      await refused(argv, `profile bench (${config})`, /unknown region "ap-south-9"/);
    assert.equal(
      process.env.AWS_PROFILE,
      undefined,
      "the profile is an argument: process.env is not written",
    );
    // deploy still hands its profile to the SDK through AWS_PROFILE (aws-options.ts)
    await refused(
      ["deploy", "--profile", "bench"],
      `profile bench (${config})`,
      /unknown region "ap-south-9"/,
    );
    process.env.AWS_REGION = "mars-1";
    await refused(["teardown"], "AWS_REGION", /unknown region "mars-1"/);
    delete process.env.AWS_REGION;
    process.env.AWS_CONFIG_FILE = join(dir, "none");
    await refused(["teardown"], "region", /no region: pass --region .* AWS_REGION or AWS_DEFAULT_REGION/);
    restore();
  });

  test("lab up: the lab's profile is --lab-profile; the old --profile still works, with a notice on stderr", {
    skip: !existsSync(new URL("../../../dist/agent/index.mjs", import.meta.url)),
  }, () => {
    const cli = new URL("../../../bin/lambda-netbench.js", import.meta.url).pathname;
    const old = spawnSync(
      process.execPath,
      [cli, "lab", "up", "--profile", "no-such-profile", "--unshaped"],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    assert.equal(old.status, 2, old.stderr);
    assert.match(old.stderr, /--profile is now --lab-profile/);
    assert.match(old.stderr, /unknown lab profile "no-such-profile"/, "and it is used as the lab profile");
    const now = spawnSync(
      process.execPath,
      [cli, "lab", "up", "--lab-profile", "no-such-profile", "--unshaped"],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    assert.equal(now.status, 2, now.stderr);
    assert.doesNotMatch(now.stderr, /is now --lab-profile/);
  });

  test("run takes --region as well as --regions; an unknown one exits 2 before anything else", async () => {
    await refused(["run", "--region", "mars-1", "--yes"], "region", /unknown region "mars-1" \(allowed:/);
    await refused(["run", "--regions", "us-west-2,mars-1", "--yes"], "regions", /unknown region "mars-1"/);
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

  // three entries, so the second and third local headers sit at offsets the central directory
  // must name; a UTF-8 name, an empty file and another mode
  const entries = [
    { name: "index.mjs", data: Buffer.from("export const handler = 1;\n".repeat(500)) },
    { name: "lib/\u00fc.txt", data: Buffer.alloc(0), mode: 0o600 },
    { name: "b.bin", data: Buffer.from([1, 2, 3]) },
  ];

  test("the same bytes as the writer before its headers shared one field writer (2026-12-03)", () => {
    const zip = buildZip(entries);
    assert.equal(zip.length, 385);
    assert.equal(
      createHash("sha256").update(zip).digest("hex"),
      "51107039b998774f1986f08ea917b07cb38ff25243649029b005b0644abcbc1f",
    );
  });

  test("Python's zipfile reads every entry back: CRCs, names, contents and modes", () => {
    writeFileSync(join(dir, "three.zip"), buildZip(entries));
    const script = [
      "import json, sys, zipfile",
      "z = zipfile.ZipFile(sys.argv[1])",
      "bad = z.testzip()",
      "print(json.dumps({'bad': bad, 'entries': [[i.filename, i.external_attr >> 16, z.read(i).hex()] for i in z.infolist()]}))",
    ].join("\n");
    const read = spawnSync("python3", ["-c", script, join(dir, "three.zip")], { encoding: "utf8" });
    assert.equal(read.status, 0, read.stderr);
    const { bad, entries: seen } = JSON.parse(read.stdout);
    assert.equal(bad, null, "testzip found no entry with a bad CRC");
    assert.deepEqual(
      seen,
      entries.map((e) => [e.name, (e.mode ?? 0o644) | 0o100000, e.data.toString("hex")]),
    );
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
