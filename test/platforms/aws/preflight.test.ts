import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { publishVariants } from "../../../src/platforms/aws/function-versions.js";
import { PlannedCallRecorder } from "../../../src/platforms/aws/planned-calls.js";
import { runPreflight } from "../../../src/platforms/aws/preflight.js";
import type { PreflightRegion } from "../../../src/platforms/aws/preflight-items.js";
import {
  AwsStub,
  accountSettings,
  callerIdentity,
  describeRegion,
  describeStacks,
  ec2Error,
  json,
  jsonError,
  restJson,
  restJsonError,
  stackDoesNotExist,
  stsError,
  stubbedClients,
  testCredentials,
} from "./aws-stub.js";

const now = new Date("2026-11-30T12:00:00Z");
const quota = {
  Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 3000 },
};
const outputs = (expiresAt: string) => ({
  BucketName: "lambda-netbench-bucket-1a2b3c",
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/current.zip",
  ServerPublicDnsName: "ec2-198-18-0-1.us-west-2.compute.amazonaws.com",
  ServerPorts: "5201-5201",
  ServerExpiresAt: expiresAt,
  ServerInstanceId: "i-0123456789abcdef0",
});
const ready = JSON.stringify({
  version: "3.16",
  padding: "pkcs1",
  ports: "5201-5201",
  instanceId: "i-0123456789abcdef0",
});

type Responder = Parameters<AwsStub["on"]>[1];

/** A ready account; `replace` swaps one operation's answer (the stub queues, so replace, not add). */
function healthy(replace: Record<string, Responder> = {}): AwsStub {
  const answers: Record<string, Responder> = {
    GetCallerIdentity: callerIdentity(),
    DescribeRegions: (r) => describeRegion(String(r.input["RegionName.1"]), "opt-in-not-required"),
    GetServiceQuota: json(quota),
    GetAWSDefaultServiceQuota: json({ Quota: { ...quota.Quota, Value: 625 } }),
    ListRequestedServiceQuotaChangeHistoryByQuota: json({ RequestedQuotas: [] }),
    DescribeStacks: describeStacks("UPDATE_COMPLETE", outputs("2026-11-30T15:00:00.000Z")),
    GetParameter: json({
      Parameter: { Name: "/lambda-netbench/iperf3/server-status", Type: "String", Value: ready },
    }),
    GetAccountSettings: accountSettings(10, 10),
    ...replace,
  };
  const stub = new AwsStub();
  for (const [operation, answer] of Object.entries(answers)) stub.on(operation, answer);
  return stub;
}

const regions: PreflightRegion[] = [
  { region: "us-west-2", needsServer: true, durationSeconds: 3600, startsInSeconds: 0 },
];

async function preflight(stub: AwsStub, overrides: Partial<Parameters<typeof runPreflight>[0]> = {}) {
  const recorder = new PlannedCallRecorder(true);
  const result = await runPreflight({
    regions,
    parallelism: 1,
    expectedAgentCodeKey: () => "agent/current.zip",
    credentials: testCredentials,
    requestHandler: stub.handler,
    recorder,
    handshake: async () => "ready",
    now: () => now,
    ...overrides,
  });
  // reads only: nothing is created, changed or invoked, even outside a dry run
  assert.ok(
    stub.operations().every((op) => /^(Get|Describe|List)/.test(op)),
    stub.operations().join(","),
  );
  return result;
}

const failed = (result: Awaited<ReturnType<typeof runPreflight>>) =>
  result.items.filter((item) => item.status === "failed").map((item) => `${item.check}: ${item.detail}`);

describe("preflight on the real SDK clients (stubbed transport, AWS's error shapes)", () => {
  test("a ready account passes every item", async () => {
    const result = await preflight(healthy());
    assert.deepEqual(failed(result), []);
    assert.equal(result.ok, true);
    assert.equal(result.account, "123456789012");
    assert.deepEqual(
      result.items.map((i) => i.check),
      ["credentials", "region", "quota", "stack", "server", "concurrency"],
    );
  });

  test("every failure is listed, not just the first: TTL too short (breaker 1), parallelism above unreserved concurrency (10), stale agent", async () => {
    const stub = healthy({
      DescribeStacks: describeStacks("UPDATE_COMPLETE", {
        ...outputs("2026-11-30T12:40:00.000Z"),
        AgentCodeKey: "agent/old.zip",
      }),
    });
    const result = await preflight(stub, { parallelism: 20 });
    const text = failed(result).join("\n");
    assert.match(text, /stack: stack runs another agent build \(agent\/old\.zip/);
    assert.match(text, /concurrency: parallelism 20 is above the account's unreserved concurrency 10/);
    assert.equal(result.ok, false);
    // with the current agent, the server check runs: it expires before the run ends -> extend
    const short = healthy({
      DescribeStacks: describeStacks("UPDATE_COMPLETE", outputs("2026-11-30T12:40:00.000Z")),
    });
    const second = await preflight(short);
    assert.match(
      failed(second).join("\n"),
      /server: the server terminates itself at 2026-11-30T12:40:00.000Z, before the run ends.*--ttl-hours 1\.5/,
    );
  });

  test("expired server, stale ready status (from a replaced instance), a port that does not answer", async () => {
    const expired = await preflight(
      healthy({ DescribeStacks: describeStacks("UPDATE_COMPLETE", outputs("2026-11-30T11:00:00.000Z")) }),
    );
    assert.match(failed(expired).join(), /time-to-live ended .* redeploy/);
    const stale = JSON.stringify({
      version: "3.16",
      padding: "pkcs1",
      ports: "5201-5201",
      instanceId: "i-0old",
    });
    const staleResult = await preflight(
      healthy({ GetParameter: json({ Parameter: { Name: "s", Type: "String", Value: stale } }) }),
    );
    assert.match(failed(staleResult).join(), /has not reported ready/);
    // the server reported ready on itself: a port this machine cannot reach (corporate egress)
    // is not checked, and does not stop the run
    const silent = await preflight(healthy(), { handshake: async () => "ECONNREFUSED" });
    assert.deepEqual(failed(silent), []);
    assert.equal(silent.ok, true);
    const server = silent.items.find((i) => i.check === "server");
    assert.equal(server?.status, "unchecked");
    assert.match(
      server?.detail ?? "",
      /reported every port answering iperf3 on itself, but from this machine .*:5201 does not answer an iperf3 handshake \(ECONNREFUSED\): a network that lets no outgoing TCP 5201 out/,
    );
  });

  test("opt-in region not enabled (breaker 12); no stack; quota unreadable", async () => {
    const optIn = await preflight(healthy({ DescribeRegions: describeRegion("ap-east-2", "not-opted-in") }), {
      regions: [{ region: "ap-east-2", needsServer: false, durationSeconds: 60, startsInSeconds: 0 }],
    });
    assert.match(failed(optIn).join(), /opt-in region not enabled/);
    assert.ok(
      optIn.items
        .filter((i) => i.region === "ap-east-2" && i.check !== "region")
        .every((i) => i.status === "skipped"),
    );
    const none = await preflight(
      healthy({
        DescribeStacks: stackDoesNotExist,
        GetServiceQuota: jsonError(
          "AccessDeniedException",
          "User is not authorized to perform: servicequotas:GetServiceQuota",
        ),
        ListServiceQuotas: jsonError("AccessDeniedException", "not authorized"),
      }),
    );
    const text = failed(none).join("\n");
    assert.match(
      text,
      /stack: no lambda-netbench stack: run `lambda-netbench deploy --region us-west-2 --with-server`/,
    );
    // the platform runs without the quota, so the preflight does not stop on it (issue 29, item 6)
    assert.doesNotMatch(text, /quota:/);
    const quotaItem = none.items.find((i) => i.check === "quota");
    assert.equal(quotaItem?.status, "unchecked");
    assert.match(
      quotaItem?.detail ?? "",
      /service-quotas: AccessDeniedException.*the run goes on, its report cannot compare the rates with the quota/,
    );
    const notFound = await preflight(
      healthy({
        GetServiceQuota: jsonError(
          "NoSuchResourceException",
          "The request failed because the quota does not exist.",
        ),
        ListServiceQuotas: json({ Quotas: [] }),
      }),
    );
    assert.deepEqual(failed(notFound), []);
    assert.equal(notFound.ok, true);
  });

  test("a disabled opt-in region refuses the credentials at its own endpoint: the preflight says the region is not enabled (issue 29, item 7)", async () => {
    const invalid = ec2Error("AuthFailure", "AWS was not able to validate the provided access credentials");
    const optIn = await preflight(healthy({ DescribeRegions: invalid }), {
      regions: [{ region: "ap-east-2", needsServer: false, durationSeconds: 60, startsInSeconds: 0 }],
    });
    assert.match(
      failed(optIn).join(),
      /region: ap-east-2 is an opt-in region not enabled in this account \(its endpoint refuses credentials that STS accepts: AuthFailure.*aws account enable-region --region-name ap-east-2/,
    );
    // a region every account has: the credentials are the question, not the region
    const standard = await preflight(healthy({ DescribeRegions: invalid }));
    assert.match(
      failed(standard).join(),
      /us-west-2 is enabled in every account, so these credentials are not valid here/,
    );
  });

  test("expired credentials (STS ExpiredToken, 403): the credentials item fails with the reason", async () => {
    const result = await preflight(
      healthy({
        GetCallerIdentity: stsError("ExpiredToken", "The security token included in the request is expired"),
      }),
    );
    assert.match(
      failed(result)[0] ?? "",
      /credentials: sts GetCallerIdentity: AWS credentials expired \(ExpiredToken: The security token/,
    );
  });
});

describe("run --dry-run with no credentials and no network", () => {
  const cli = new URL("../../../bin/lambda-netbench.js", import.meta.url).pathname;
  test("prints the plan, the invocation count, the cost with the server and a preflight naming the missing credentials, within seconds", {
    skip: !existsSync(new URL("../../../dist/cli/main.js", import.meta.url)) && "needs `npm run build`",
  }, () => {
    const home = mkdtempSync(join(tmpdir(), "lnb-nocreds-"));
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_CONFIG_FILE: join(home, "none"),
      AWS_SHARED_CREDENTIALS_FILE: join(home, "none"),
    };
    const args = [cli, "run", "--preset", "seed", "--regions", "us-west-2,ap-northeast-1", "--dry-run"];
    // no network at all when we may make a namespace (root): only loopback, and it is down
    const isolated = process.getuid?.() === 0 && spawnSync("unshare", ["--net", "true"]).status === 0;
    const started = performance.now();
    const run = isolated
      ? spawnSync("unshare", ["--net", process.execPath, ...args], { env, encoding: "utf8", timeout: 60_000 })
      : spawnSync(process.execPath, args, { env, encoding: "utf8", timeout: 60_000 });
    const seconds = (performance.now() - started) / 1000;
    const out = run.stdout + run.stderr;
    assert.equal(run.status, 1, out);
    assert.match(out, /Plan seed: 36 cells on us-west-2, ap-northeast-1/);
    assert.match(out, /us-west-2: 48 invocations/);
    assert.match(out, /on AWS: 96 invocations in all/);
    assert.match(out, /EC2 server +[\d.]+ hours of c8gn\.large +price not in table/);
    // the Price List API cannot be asked either: said, and the dry run goes on
    assert.match(
      out.replace(/\s+/g, " "), // as read, whatever the wrapping
      /AWS's Price List API \(GetProducts\): no answer, no AWS credentials; give the price with --server-usd-per-hour/,
    );
    assert.match(out, /Public IPv4 +[\d.]+ hours/);
    assert.match(out, /Data transfer +[\d.]+ GB/);
    assert.match(out, /FAIL credentials +no AWS credentials found/);
    assert.match(out, /AWS_PROFILE/);
    assert.match(out, /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    assert.match(out, /Dry run: nothing was invoked or created/);
    // a busy 2-core machine takes several seconds just to start Node; the bound is generous
    assert.ok(seconds < 45, `${seconds.toFixed(1)} s`);
    console.log(
      `dry run without credentials${isolated ? " in a namespace without network" : ""}: ${seconds.toFixed(1)} s`,
    );
  });
});

describe("preflight: memory above 3,008 MB (new accounts are often held to it; GetAccountSettings does not say)", () => {
  const versions = (...sizes: number[]) =>
    restJson({
      Versions: sizes.map((size, index) => ({
        FunctionName: "lambda-netbench-agent",
        Version: index === 0 ? "$LATEST" : String(index),
        MemorySize: size,
      })),
    });
  const memoryItem = async (stub: AwsStub, largestMemoryMb: number) => {
    const result = await runPreflight({
      regions: [{ ...(regions[0] as PreflightRegion), largestMemoryMb }],
      parallelism: 1,
      expectedAgentCodeKey: () => "agent/current.zip",
      credentials: testCredentials,
      requestHandler: stub.handler,
      handshake: async () => "ready",
      now: () => now,
    });
    const item = result.items.find((i) => i.check === "memory");
    assert.ok(item, result.items.map((i) => i.check).join(","));
    return item;
  };

  test("a size no version has is not checked (only an update tells) and the preflight writes nothing", async () => {
    const stub = healthy().on("ListVersionsByFunction", versions(2048, 2048));
    const item = await memoryItem(stub, 10_240);
    assert.equal(item.status, "unchecked");
    assert.match(item.detail, /10240 MB not checked: accounts may be held to 3008 MB/);
    assert.match(item.detail, /the run stops before its first invocation/);
    assert.ok(
      stub.operations().every((op) => /^(Describe|Get|List)/.test(op)),
      stub.operations().join(", "),
    );
  });

  test("the run's first update to a refused size gets the advice (Lambda's ValidationException)", async () => {
    const stub = new AwsStub()
      .on("GetFunctionConfiguration", restJson({ MemorySize: 2048, Architectures: ["arm64"] }))
      .on(
        "UpdateFunctionConfiguration",
        restJsonError(
          "ValidationException",
          "'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to 3008",
          400,
        ),
      );
    const clients = stubbedClients(stub);
    await assert.rejects(
      publishVariants(clients.lambda, [{ memoryMb: 10_240, arch: "arm64" }], {
        code: { bucket: "b", key: "agent/abc.zip" },
        waiter: { minDelaySeconds: 1, maxDelaySeconds: 1, maxWaitSeconds: 1 },
      }),
      /10240 MB is refused in this account \(at most 3008 MB\).*AWS Support/,
    );
  });

  test("a size a version already has needs no probe; up to 3,008 MB needs no call", async () => {
    const stub = healthy().on("ListVersionsByFunction", versions(2048, 10_240));
    const item = await memoryItem(stub, 10_240);
    assert.equal(item.status, "ok");
    assert.match(item.detail, /version 1 has 10240 MB/);
    const small = healthy();
    assert.equal((await memoryItem(small, 3_008)).status, "ok");
    assert.ok(!small.operations().includes("ListVersionsByFunction"));
  });
});

describe("the server check from inside the agent function (this machine cannot reach TCP 5201)", () => {
  // what the agent answers, measured here for real: its handler connects to a listener on
  // loopback (reached) and to a port nothing listens on (refused)
  async function agentAnswers() {
    const { createServer } = await import("node:net");
    const { handleEvent } = await import("../../../src/agent/handler.js");
    const listener = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as { port: number }).port;
    const reached = await handleEvent({ probe: "tcp-connect", host: "127.0.0.1", port });
    await new Promise((resolve) => listener.close(resolve));
    const refused = await handleEvent({ probe: "tcp-connect", host: "127.0.0.1", port });
    return { reached, refused };
  }

  async function realPreflight(stub: AwsStub) {
    return runPreflight({
      regions,
      parallelism: 1,
      expectedAgentCodeKey: () => "agent/current.zip",
      credentials: testCredentials,
      requestHandler: stub.handler,
      recorder: new PlannedCallRecorder(false),
      dryRun: false,
      handshake: async () => "ETIMEDOUT",
      now: () => now,
    });
  }

  test("the function connects: the server item is ok and says from where", async () => {
    const { reached } = await agentAnswers();
    assert.equal(reached.ok, true);
    const stub = healthy({ Invoke: json(reached) });
    const result = await realPreflight(stub);
    const server = result.items.find((item) => item.check === "server");
    assert.equal(server?.status, "ok", server?.detail);
    assert.match(
      server?.detail ?? "",
      /reached from the agent function \(TCP connect in \d+ ms; from this machine .*\(ETIMEDOUT\)/,
    );
    const invoke = stub.requests.find((request) => request.operation === "Invoke");
    assert.ok(invoke, stub.operations().join(","));
    assert.match(invoke.path ?? "", /lambda-netbench-agent/);
  });

  test("a --vpc-only stack: its VPC function is asked, at the server's private address in the same VPC", async () => {
    const { reached } = await agentAnswers();
    const vpcOnly = {
      ...outputs("2026-11-30T15:00:00.000Z"),
      FunctionName: "lambda-netbench-agent-vpc",
      VpcOnly: "true",
      VpcFunctionName: "lambda-netbench-agent-vpc",
      VpcId: "vpc-0123456789abcdef0",
      ServerVpcId: "vpc-0123456789abcdef0",
      ServerPrivateIp: "10.0.0.5",
    };
    const stub = healthy({
      DescribeStacks: describeStacks("UPDATE_COMPLETE", vpcOnly),
      Invoke: json(reached),
    });
    const result = await realPreflight(stub);
    assert.equal(result.items.find((item) => item.check === "server")?.status, "ok");
    const invoke = stub.requests.find((request) => request.operation === "Invoke");
    assert.match(invoke?.path ?? "", /lambda-netbench-agent-vpc/);
    assert.equal(invoke?.input.host, "10.0.0.5");
  });

  test("the function cannot connect either: the preflight refuses, naming both", async () => {
    const { refused } = await agentAnswers();
    const result = await realPreflight(healthy({ Invoke: json(refused) }));
    assert.equal(result.ok, false);
    assert.match(
      failed(result).join(),
      /server: .*neither this machine \(ETIMEDOUT\) nor the agent function \(ECONNREFUSED\) connects to/,
    );
  });

  test("the function cannot be asked (an older agent, a denied invoke): unchecked, the run goes on", async () => {
    const result = await realPreflight(
      healthy({
        Invoke: jsonError("AccessDeniedException", "not authorized to perform: lambda:InvokeFunction", 403),
      }),
    );
    const server = result.items.find((item) => item.check === "server");
    assert.equal(server?.status, "unchecked");
    assert.match(server?.detail ?? "", /the function could not be asked \(.*AccessDenied/);
  });
});
