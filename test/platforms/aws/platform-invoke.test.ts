import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AwsPlatform } from "../../../src/platforms/aws/aws-platform.js";
import { PlannedCallRecorder } from "../../../src/platforms/aws/planned-calls.js";
import {
  AwsStub,
  describeStacks,
  json,
  jsonError,
  restJson,
  restJsonError,
  testCredentials,
} from "./aws-stub.js";

const outputs = {
  BucketName: "lambda-netbench-bucket-1a2b3c",
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/abc.zip",
  FunctionArchitecture: "arm64",
};
const quota = {
  Quota: {
    ServiceCode: "lambda",
    QuotaCode: "L-14320ECE",
    QuotaName: "Network bandwidth per execution environment",
    Value: 625,
    Adjustable: true,
  },
};
const config = (memory: number, arch = "arm64", status = "Successful") => ({
  FunctionName: "lambda-netbench-agent",
  FunctionArn: "arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent",
  Runtime: "nodejs22.x",
  MemorySize: memory,
  Architectures: [arch],
  State: "Active",
  LastUpdateStatus: status,
});
const agentOk = {
  ok: true,
  probe: "info",
  summary: null,
  detail: {},
  invocation: { environmentId: "e1", invocationNumber: 1, cold: true },
  startedAt: "2026-11-29T20:00:00Z",
  durationSeconds: 0.01,
};
const fast = {
  waiter: { minDelaySeconds: 0.01, maxDelaySeconds: 0.02, maxWaitSeconds: 5 },
  backoff: { baseMs: 1, capMs: 5 },
};

function baseStub(): AwsStub {
  return new AwsStub()
    .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", outputs))
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json(quota))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
}

async function open(stub: AwsStub) {
  return AwsPlatform.open({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    ...fast,
  });
}

describe("AwsPlatform prepare and invoke on the real Lambda client (stubbed transport)", () => {
  test("prepare: per size update -> wait (GetFunction until Successful) -> publish -> alias; conflicts retried", async () => {
    const stub = baseStub()
      .on("GetFunctionConfiguration", restJson(config(1024, "x86_64")))
      .on("UpdateFunctionCode", restJson(config(1024, "arm64", "InProgress")))
      .on(
        "UpdateFunctionConfiguration",
        restJsonError(
          "ResourceConflictException",
          "The operation cannot be performed at this time. An update is in progress for resource: arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent",
          409,
        ),
        restJson(config(1024, "arm64", "InProgress")),
      )
      .on(
        "GetFunction",
        restJson({ Configuration: config(1024, "arm64", "InProgress") }),
        restJson({ Configuration: config(1024, "arm64", "Successful") }),
      )
      .on("PublishVersion", restJson({ ...config(1024), Version: "7" }, 201))
      .on("GetAlias", restJsonError("ResourceNotFoundException", "Cannot find alias arn", 404))
      .on("CreateAlias", restJson({ Name: "m1024-arm64", FunctionVersion: "7" }, 201));
    const platform = await open(stub);
    const before = stub.requests.length;
    await platform.prepare([{ memoryMb: 1024, arch: "arm64" }]);
    const ops = stub.operations().slice(before);
    assert.deepEqual(ops, [
      "GetFunctionConfiguration",
      "UpdateFunctionCode",
      "GetFunction",
      "GetFunction",
      "UpdateFunctionConfiguration",
      // the conflict: wait for the function's update to finish, then go on
      "GetFunction",
      "UpdateFunctionConfiguration",
      "GetFunction",
      "PublishVersion",
      "GetAlias",
      "CreateAlias",
      // $LATEST was x86_64 where the stack says arm64 (a killed run's leftover): it stays at the
      // stack's own arm64, not switched back to what it was found with
    ]);
    const calls = stub.requests.slice(before);
    assert.deepEqual(calls[1]?.input.Architectures, ["arm64"]);
    assert.equal(calls[1]?.input.S3Key, "agent/abc.zip");
    assert.equal(calls[6]?.input.MemorySize, 1024);
    assert.deepEqual(
      { Name: calls[10]?.input.Name, FunctionVersion: calls[10]?.input.FunctionVersion },
      { Name: "m1024-arm64", FunctionVersion: "7" },
    );
    assert.equal((await platform.facts()).quotaBitsPerSecond, 625_000_000);
    stub
      .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
      .on("DeleteFunction", { statusCode: 204, headers: {}, body: "" });
    await platform.dispose();
    assert.deepEqual(stub.operations().slice(-2), ["DeleteAlias", "DeleteFunction"]);
    assert.equal(stub.requests.at(-1)?.input.Qualifier, "7");
  });

  async function prepared(stub: AwsStub) {
    stub
      .on("GetFunctionConfiguration", restJson(config(2048)))
      .on("UpdateFunctionConfiguration", restJson(config(2048)))
      .on("GetFunction", restJson({ Configuration: config(2048) }))
      .on("PublishVersion", restJson({ ...config(2048), Version: "3" }, 201))
      .on("GetAlias", restJson({ Name: "m2048-arm64", FunctionVersion: "2" }))
      .on("UpdateAlias", restJson({ Name: "m2048-arm64", FunctionVersion: "3" }));
    const platform = await open(stub);
    await platform.prepare([{ memoryMb: 2048, arch: "arm64" }]);
    return platform;
  }
  const variant = { memoryMb: 2048, arch: "arm64" as const };
  const event = { probe: "info" as const };

  test("invoke: the alias, synchronously; the agent's JSON comes back", async () => {
    const stub = baseStub().on("Invoke", restJson(agentOk, 200, { "x-amz-executed-version": "3" }));
    const platform = await prepared(stub);
    assert.ok(stub.operations().includes("UpdateAlias"), "an existing alias is moved, not recreated");
    const outcome = await platform.invoke(variant, event);
    const call = stub.requests.at(-1);
    assert.ok(call);
    assert.equal(call.operation, "Invoke");
    assert.equal(call.input.Qualifier, "m2048-arm64");
    assert.equal(call.headers["x-amz-invocation-type"], "RequestResponse");
    assert.deepEqual(call.input.probe, "info");
    assert.equal(outcome.failure, null);
    assert.equal(outcome.response?.ok, true);
  });

  test("invoke: TooManyRequestsException and ThrottlingException retried with backoff, then recorded as throttled", async () => {
    const throttled = restJsonError("TooManyRequestsException", "Rate Exceeded.", 429, {
      Reason: "ConcurrentInvocationLimitExceeded",
    });
    const throttling = restJsonError("ThrottlingException", "Rate exceeded", 429);
    const stub = baseStub().on("Invoke", throttled, throttling, restJson(agentOk));
    const platform = await prepared(stub);
    const before = stub.requests.length;
    const recovered = await platform.invoke(variant, event);
    assert.equal(stub.requests.length - before, 3);
    assert.equal(recovered.failure, null);
    assert.equal((recovered as { retries?: number }).retries, 2);

    const always = baseStub().on("Invoke", throttled);
    const p2 = await prepared(always);
    const outcome = await p2.invoke(variant, event);
    assert.equal(outcome.failure?.kind, "throttled");
    assert.match(outcome.failure?.message ?? "", /TooManyRequestsException/);
    assert.equal(always.operations().filter((op) => op === "Invoke").length, 6, "defaultBackoff.maxAttempts");
  });

  for (const [name, payload, kind] of [
    [
      "Unhandled error",
      { errorType: "TypeError", errorMessage: "x is not a function", trace: [] },
      "function-error",
    ],
    [
      "timeout",
      {
        errorType: "Sandbox.Timedout",
        errorMessage: "RequestId: 1a2b Error: Task timed out after 900.00 seconds",
      },
      "timeout",
    ],
    [
      "out of memory",
      {
        errorType: "Runtime.OutOfMemory",
        errorMessage: "RequestId: 1a2b Error: Runtime exited with error: signal: killed",
      },
      "out-of-memory",
    ],
  ] as const) {
    test(`invoke: FunctionError (${name}) recorded as ${kind}, not dropped`, async () => {
      const stub = baseStub().on("Invoke", restJson(payload, 200, { "x-amz-function-error": "Unhandled" }));
      const platform = await prepared(stub);
      const outcome = await platform.invoke(variant, event);
      assert.equal(outcome.response, null);
      assert.equal(outcome.failure?.kind, kind);
      assert.ok(outcome.failure?.message.includes(payload.errorMessage));
    });
  }

  test("invoke: a variant that was not prepared fails as a platform error, with no call", async () => {
    const stub = baseStub();
    const platform = await open(stub);
    const before = stub.requests.length;
    const outcome = await platform.invoke({ memoryMb: 4096, arch: "x86_64" }, event);
    assert.equal(outcome.failure?.kind, "platform");
    assert.equal(stub.requests.length, before);
  });

  test("open: quota unreadable (AccessDenied) still opens, and says why in the facts", async () => {
    const stub = new AwsStub()
      .on("DescribeStacks", describeStacks("CREATE_COMPLETE", outputs))
      .on(
        "GetServiceQuota",
        jsonError("AccessDeniedException", "not authorized to perform servicequotas:GetServiceQuota"),
      );
    const platform = await open(stub);
    const facts = await platform.facts();
    assert.equal(facts.quotaBitsPerSecond, null);
    assert.match(JSON.stringify(facts.details), /AccessDeniedException/);
  });

  test("run --dry-run: prepare and invoke only list the changes and invocations they would make", async () => {
    const stub = baseStub()
      .on("GetFunctionConfiguration", restJson(config(2048)))
      .on("GetAlias", restJsonError("ResourceNotFoundException", "Cannot find alias", 404));
    const recorder = new PlannedCallRecorder(true);
    const platform = await AwsPlatform.open({
      region: "us-west-2",
      credentials: testCredentials,
      requestHandler: stub.handler,
      recorder,
      ...fast,
    });
    await platform.prepare([{ memoryMb: 4096, arch: "arm64" }]);
    const outcome = await platform.invoke({ memoryMb: 4096, arch: "arm64" }, event);
    assert.match(outcome.failure?.message ?? "", /dry run/);
    assert.ok(
      stub.operations().every((op) => /^(Describe|Get|List)/.test(op)),
      stub.operations().join(","),
    );
    assert.deepEqual(
      recorder.calls.filter((call) => !call.sent).map((call) => call.operation),
      // the last update puts $LATEST back at the memory it had
      [
        "UpdateFunctionConfiguration",
        "PublishVersion",
        "CreateAlias",
        "UpdateFunctionConfiguration",
        "Invoke",
      ],
    );
    assert.equal(recorder.calls.find((call) => call.operation === "Invoke")?.input.Payload, "[redacted]");
  });
});
