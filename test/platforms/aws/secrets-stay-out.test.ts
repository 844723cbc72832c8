import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { validatePlan } from "../../../src/plan/load-plan.js";
import { AwsPlatform } from "../../../src/platforms/aws/aws-platform.js";
import { generateIperf3Secrets } from "../../../src/platforms/aws/iperf3-credentials.js";
import { runPlan } from "../../../src/runner/run-plan.js";
import { type AwsStub, deployedRegion, restJson, restJsonError } from "./aws-stub.js";

/**
 * The product's promise: secrets never reach logs or results. A whole run on the real runner,
 * the real AWS platform and the real SDK clients (AWS's answers from the stubbed transport),
 * with every secret in play: the operator's secret key and session token sign each call, the
 * iperf3 password and private key come from SSM and travel in each Invoke payload. The
 * invocations fail every way a message can come back (the agent's error, a function error with
 * its stack, throttling past the retries) or succeed. Nothing written to the run directory,
 * printed, or handed to the progress events may hold any of the secrets.
 */
const iperf3 = generateIperf3Secrets();
const credentials = {
  accessKeyId: "ASIAEXAMPLEKEYID0001",
  secretAccessKey: "lnbTestSecretAccessKey/0123456789abcdefABCDEF",
  sessionToken: "lnbTestSessionToken//0123456789abcdefABCDEFghijklmnop==",
};
const privateKeyLine = iperf3.privateKeyPem.split("\n")[1] ?? "";
const secretsInPlay = {
  "iperf3 password": iperf3.password,
  "iperf3 private key": privateKeyLine,
  "AWS secret key": credentials.secretAccessKey,
  "AWS session token": credentials.sessionToken,
};

const dir = mkdtempSync(join(tmpdir(), "lnb-secrets-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const identity = (n: number) => ({ environmentId: "e1", invocationNumber: n, cold: n === 1 });
const agentAnswer = (n: number, ok: boolean) =>
  restJson({
    ok,
    probe: "iperf3",
    ...(ok
      ? { summary: null, detail: {} }
      : {
          error: {
            kind: "auth-failed",
            message: "the server refused the credentials of user lambda-netbench",
          },
        }),
    invocation: identity(n),
    startedAt: "2026-11-30T12:00:00Z",
    durationSeconds: 1,
  });

function account(): AwsStub {
  return deployedRegion({
    secrets: iperf3,
    padding: "oaep",
    serverExpiresAt: new Date(Date.now() + 3 * 3_600_000).toISOString(),
  })
    .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
    .on("DeleteFunction", { statusCode: 204, headers: {}, body: "" })
    .on(
      "Invoke",
      agentAnswer(1, false),
      restJson(
        {
          errorType: "TypeError",
          errorMessage: "Cannot read properties of undefined (reading 'sendBytes')",
          trace: ["TypeError: Cannot read properties of undefined", "    at file:///var/task/index.mjs:1:2"],
        },
        200,
        { "x-amz-function-error": "Unhandled" },
      ),
      restJsonError("TooManyRequestsException", "Rate exceeded", 429),
      restJsonError("TooManyRequestsException", "Rate exceeded", 429),
      agentAnswer(2, true),
    );
}

function filesUnder(path: string): string[] {
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(path, entry.name)) : [join(path, entry.name)],
  );
}

test("no secret reaches results.jsonl, the run directory, printed lines or progress events", async () => {
  const stub = account();
  const printed: string[] = [];
  const original = { log: console.log, error: console.error, warn: console.warn };
  const capture = (...args: unknown[]) => printed.push(args.map(String).join(" "));
  console.log = capture;
  console.error = capture;
  console.warn = capture;
  let result: Awaited<ReturnType<typeof runPlan>>;
  try {
    result = await runPlan({
      start: {
        plan: validatePlan({
          name: "secrets",
          targets: [{ platform: "aws", region: "us-west-2" }],
          memoryMb: [2048],
          architectures: ["arm64"],
          repetitions: 3,
          warmup: false,
          parallelism: 1,
          probes: [{ kind: "iperf3", timeSeconds: 10 }],
        }),
        parentDir: dir,
        source: { preset: null, configPath: "secrets.json", regions: null },
      },
      openPlatform: () =>
        AwsPlatform.open({
          region: "us-west-2",
          credentials,
          requestHandler: stub.handler,
          waiter: { minDelaySeconds: 0.01, maxDelaySeconds: 0.02, maxWaitSeconds: 5 },
          backoff: { baseMs: 1, capMs: 2, maxAttempts: 2 },
        }),
      onEvent: (event) => printed.push(JSON.stringify(event)),
    });
  } finally {
    Object.assign(console, original);
  }

  // the secrets were really in play: signed with the session token, the password in the payload
  const invokes = stub.requests.filter((request) => request.operation === "Invoke");
  assert.ok(invokes.length >= 4, `${invokes.length} Invoke calls`);
  assert.ok(JSON.stringify(invokes[0]?.input).includes(iperf3.password), "the agent is handed the password");
  assert.equal(invokes[0]?.headers["x-amz-security-token"], credentials.sessionToken);

  const records = readFileSync(join(result.dir, "results.jsonl"), "utf8").trim().split("\n");
  assert.equal(records.length, 3, "every invocation recorded, failed ones included");
  const written = filesUnder(result.dir).map((file) => ({ file, text: readFileSync(file, "utf8") }));
  assert.ok(
    written.some(({ text }) => text.includes("refused the credentials")),
    "failure messages are kept",
  );
  assert.ok(
    written.some(({ text }) => text.includes("sendBytes")),
    "function errors are kept",
  );
  const places = [...written, { file: "printed lines and progress events", text: printed.join("\n") }];
  for (const [secret, value] of Object.entries(secretsInPlay)) {
    assert.ok(value.length >= 16, `${secret} is a real secret to look for`);
    for (const { file, text } of places) assert.ok(!text.includes(value), `the ${secret} is in ${file}`);
  }
});
