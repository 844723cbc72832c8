import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, beforeEach, test } from "node:test";
import { runCommand } from "../../../src/cli/commands/run.js";
import { buildAgentZip } from "../../../src/platforms/aws/agent-zip.js";
import { AwsPlatform } from "../../../src/platforms/aws/aws-platform.js";
import {
  AwsStub,
  accountSettings,
  callerIdentity,
  describeRegion,
  describeStacks,
  json,
  restJson,
  restJsonError,
  stubbedAwsDeps,
  testCredentials,
} from "./aws-stub.js";

/**
 * Issue 11: a login that expires mid-run pauses the run and says how to log in again (the exact
 * command for the user's SSO profile) and how to resume (the exact command); nothing recorded is
 * lost, and `run --resume` completes the run with the same records plus the missing ones.
 * The whole `run` command (preflight, confirmation, runner, report) on the real SDK clients with
 * AWS's answers from the stubbed transport; ExpiredTokenException as Lambda sends it (403).
 */
const dir = mkdtempSync(join(tmpdir(), "lnb-expired-"));
const configFile = join(dir, "config");
writeFileSync(
  configFile,
  "[profile bench]\nsso_session = corp\nsso_account_id = 123456789012\nsso_role_name = Bench\n\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n",
);
const planFile = join(dir, "plan.json");
writeFileSync(
  planFile,
  JSON.stringify({
    name: "login",
    targets: [{ platform: "aws", region: "us-west-2" }],
    memoryMb: [1024],
    architectures: ["arm64"],
    repetitions: 5,
    warmup: false,
    parallelism: 1,
    probes: [{ kind: "info" }],
  }),
);
after(() => rmSync(dir, { recursive: true, force: true }));

const saved = { ...process.env };
let out: string[] = [];
const original = { log: console.log, error: console.error, write: process.stderr.write };
beforeEach(() => {
  process.env.AWS_PROFILE = "bench";
  process.env.AWS_CONFIG_FILE = configFile;
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, "no-credentials");
  out = [];
  console.log = (...args: unknown[]) => out.push(args.join(" "));
  console.error = (...args: unknown[]) => out.push(args.join(" "));
});
afterEach(() => {
  console.log = original.log;
  console.error = original.error;
  for (const key of ["AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"]) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

const config = {
  FunctionName: "lambda-netbench-agent",
  Runtime: "nodejs22.x",
  MemorySize: 1024,
  Architectures: ["arm64"],
  State: "Active",
  LastUpdateStatus: "Successful",
};
let invocation = 0;
const answered = () => {
  invocation += 1;
  return restJson({
    ok: true,
    probe: "info",
    summary: null,
    detail: { memoryMb: 1024 },
    invocation: { environmentId: "env-1", invocationNumber: invocation, cold: invocation === 1 },
    startedAt: new Date().toISOString(),
    durationSeconds: 0.01,
  });
};
const quota = {
  Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 625 },
};

/** A deployed region without a server: the preflight's reads, the platform's prepare, then `invoke`. */
function account(invoke: Parameters<AwsStub["on"]>[1][]): AwsStub {
  const agentCodeKey = `agent/${buildAgentZip().sha256}.zip`;
  return new AwsStub()
    .on("GetCallerIdentity", callerIdentity())
    .on("DescribeRegions", describeRegion("us-west-2", "opt-in-not-required"))
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json(quota))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
    .on(
      "DescribeStacks",
      describeStacks("UPDATE_COMPLETE", {
        BucketName: "lambda-netbench-bucket-1a2b3c",
        FunctionName: "lambda-netbench-agent",
        AgentCodeKey: agentCodeKey,
      }),
    )
    .on("GetAccountSettings", accountSettings(10, 10))
    .on("GetFunctionConfiguration", restJson(config))
    .on("UpdateFunctionConfiguration", restJson(config))
    .on("GetFunction", restJson({ Configuration: config }))
    .on("PublishVersion", restJson({ ...config, Version: "3" }, 201))
    .on("GetAlias", restJson({ Name: "m1024-arm64", FunctionVersion: "2" }))
    .on("UpdateAlias", restJson({ Name: "m1024-arm64", FunctionVersion: "3" }))
    .on("ListAliases", restJson({ Aliases: [{ Name: "m1024-arm64", FunctionVersion: "3" }] }))
    .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
    .on("DeleteFunction", { statusCode: 204, headers: {}, body: "" })
    .on("Invoke", ...invoke);
}

/** `run` on `stub`: the preflight's clients and the platform's (built here, with short waits). */
function deps(stub: AwsStub) {
  return {
    aws: stubbedAwsDeps(stub),
    openPlatform: (target: { platform: string; region?: string }) =>
      AwsPlatform.open({
        region: target.region as string,
        credentials: testCredentials,
        requestHandler: stub.handler,
        waiter: { minDelaySeconds: 0.01, maxDelaySeconds: 0.02, maxWaitSeconds: 5 },
        backoff: { baseMs: 1, capMs: 5 },
      }),
  };
}

const resultLines = (runDir: string) =>
  readFileSync(join(runDir, "results.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "");

test("expired SSO login mid-run: paused with `aws sso login --profile bench` and the resume command; resume completes with every record kept", {
  skip: !existsSync(new URL("../../../dist/agent/index.mjs", import.meta.url)) && "needs `npm run build`",
}, async () => {
  const expired = restJsonError(
    "ExpiredTokenException",
    "The security token included in the request is expired",
    403,
  );
  const first = account([answered(), answered(), expired]);
  const code = await runCommand(
    { config: planFile, out: join(dir, "runs"), yes: true },
    deps(first) as never,
  );
  const text = out.join("\n");
  assert.equal(code, 1, text);
  assert.match(
    text,
    /AWS credentials expired \(ExpiredTokenException: The security token included in the request is expired\)/,
  );
  assert.match(text, /log in again with `aws sso login --profile bench`/);
  const resume = /Then resume with: (lambda-netbench run --resume (\S+))$/m.exec(text);
  assert.ok(resume, text);
  const runDir = resume[2] as string;
  original.log(
    text
      .split("\n")
      .filter((line) => /expired|resume|Paused/.test(line))
      .join("\n"),
  );
  assert.equal(stubInvokes(first), 3, "the third invocation met the expired login; no more were tried");
  const before = resultLines(runDir);
  assert.equal(before.length, 2, "the two answered invocations are recorded, the paused one is not");
  assert.ok(before.every((line) => (JSON.parse(line) as { ok: boolean }).ok));

  // after `aws sso login`: resume completes the run, the first records untouched
  out = [];
  const second = account([answered()]);
  const resumed = await runCommand(
    { resume: runDir, out: join(dir, "runs"), yes: true },
    deps(second) as never,
  );
  assert.equal(resumed, 0, out.join("\n"));
  assert.equal(stubInvokes(second), 3, "only the three missing invocations ran");
  const afterResume = resultLines(runDir);
  assert.equal(afterResume.length, 5);
  assert.deepEqual(
    afterResume.slice(0, 2),
    before,
    "nothing recorded before the pause was lost or rewritten",
  );
  const repetitions = afterResume
    .map((line) => (JSON.parse(line) as { repetition: number }).repetition)
    .sort();
  assert.deepEqual(repetitions, [1, 2, 3, 4, 5]);
});

function stubInvokes(stub: AwsStub): number {
  return stub.operations().filter((operation) => operation === "Invoke").length;
}
