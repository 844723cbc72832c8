import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { cliArgv } from "../helpers/cli-process.js";
import { S3RVER_CREDENTIALS, type S3rverInstance, startS3rver } from "../helpers/s3rver-instance.js";

/**
 * `probe latency` as a user runs it, against s3rver on loopback (plain HTTP, path-style, signed
 * with s3rver's keys): the console table and --json, and its refusals.
 */
let s3: S3rverInstance;
before(async () => {
  s3 = await startS3rver({ buckets: ["latency"] });
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
  });
  await client.send(
    new PutObjectCommand({ Bucket: "latency", Key: "object", Body: Buffer.alloc(1_048_576, 7) }),
  );
  client.destroy();
});
after(async () => {
  await s3?.close();
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgv(args),
      {
        timeout: 120_000,
        env: {
          ...process.env,
          AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const target = () => [
  "probe",
  "latency",
  "--endpoint",
  s3.endpoint,
  "--bucket",
  "latency",
  "--key",
  "object",
  "--path-style",
];

interface PhaseStats {
  n: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
  p99Seconds: number | null;
  unsupported: string[];
}

test("probe latency --json: every phase's percentiles per connection mode, none that n cannot support", async () => {
  const run = await cli([...target(), "--requests", "20", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  const answer = JSON.parse(run.stdout) as {
    rangeBytes: number;
    modes: Array<{
      mode: string;
      requests: number;
      failedRequests: number;
      phases: Record<string, PhaseStats | null>;
    }>;
  };
  assert.equal(answer.rangeBytes, 65_536);
  assert.deepEqual(
    answer.modes.map((m) => [m.mode, m.requests, m.failedRequests]),
    [
      ["kept-alive", 20, 0],
      ["new", 20, 0],
    ],
  );
  const [keptAlive, fresh] = answer.modes;
  // a kept-alive connection opens nothing per request; a new one connects each time (plain HTTP: no TLS)
  assert.equal(keptAlive?.phases.connect, null);
  assert.equal(fresh?.phases.connect?.n, 20);
  assert.equal(fresh?.phases.tls, null);
  for (const mode of answer.modes) {
    const firstByte = mode.phases.firstByte;
    assert.ok(firstByte && firstByte.n === 20, `${mode.mode}: first byte of every request`);
    assert.ok((firstByte.p50Seconds ?? 0) > 0 && (firstByte.p50Seconds ?? 0) <= (firstByte.p90Seconds ?? 0));
    // n = 20 supports p50 and p90, not p99 (nearest rank needs n >= 100): said, never invented
    assert.equal(firstByte.p99Seconds, null);
    assert.deepEqual(firstByte.unsupported, ["p99 needs n >= 100"]);
    for (const stats of Object.values(mode.phases))
      for (const value of [stats?.p50Seconds, stats?.p90Seconds])
        if (typeof value === "number")
          assert.equal(value, Math.round(value * 1e6) / 1e6, "times in whole microseconds");
  }
});

test("probe latency prints its phases per mode with n, wrapped to the output (100 columns when piped)", async () => {
  const run = await cli([...target(), "--requests", "10", "--warmup", "1"]);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split("\n").filter((line) => line.length > 0);
  assert.ok(lines.length >= 3, run.stdout);
  assert.match(run.stdout, /kept-alive/);
  assert.match(run.stdout, /new/);
  assert.match(run.stdout, /n=10|n 10|10 requests/, run.stdout);
  for (const line of lines) assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
});

test("probe latency refuses bad options, naming them, before any request", async () => {
  const bytes = await cli([...target(), "--bytes", "lots"]);
  assert.equal(bytes.code, 2, bytes.stderr);
  assert.match(bytes.stderr, /--bytes/);
  const modes = await cli([...target(), "--connections", "pooled"]);
  assert.equal(modes.code, 2, modes.stderr);
  assert.match(modes.stderr, /kept-alive, new|kept-alive|new/);
});
