import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { buildAgentZip } from "../../src/platforms/aws/agent-zip.js";
import { buildStackTemplate } from "../../src/platforms/aws/stack-template.js";
import {
  type AwsStub,
  accountSettings,
  callerIdentity,
  describeRegion,
  describeStacks,
  json,
  queryXml,
  restJson,
  restJsonError,
  type StubbedCli,
  stackDoesNotExist,
  useStubbedAws,
} from "../platforms/aws/aws-stub.js";

/**
 * Issue 13: `schedule create --dry-run` checks the account (preflight), prints what create would
 * make and the calls it would make, and sends nothing that creates or changes anything.
 */
const built =
  existsSync(new URL("../../dist/agent/index.mjs", import.meta.url)) &&
  existsSync(new URL("../../dist/agent/recorder.mjs", import.meta.url));
const quota = {
  Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 3000 },
};
const config = {
  FunctionName: "lambda-netbench-agent",
  Runtime: "nodejs22.x",
  MemorySize: 2048,
  Timeout: 900,
  Architectures: ["arm64"],
  State: "Active",
  LastUpdateStatus: "Successful",
};
const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** `stub` answering as an account in us-west-2 with the region's stack deployed, or without one. */
function account(stub: AwsStub, stack: "deployed" | "absent"): AwsStub {
  const agentCodeKey = `agent/${buildAgentZip().sha256}.zip`;
  const region = buildStackTemplate({
    agentCodeKey,
    arch: "arm64",
    memoryMb: 2048,
    timeoutSeconds: 900,
    server: null,
  });
  return stub
    .on("GetCallerIdentity", callerIdentity())
    .on("DescribeRegions", describeRegion("us-west-2", "opt-in-not-required"))
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json({ Quota: { ...quota.Quota, Value: 625 } }))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
    .on(
      "DescribeStacks",
      stack === "absent"
        ? stackDoesNotExist
        : describeStacks("UPDATE_COMPLETE", {
            BucketName: "lambda-netbench-bucket-1a2b3c",
            FunctionName: "lambda-netbench-agent",
            AgentCodeKey: agentCodeKey,
            FunctionArchitecture: "arm64",
          }),
    )
    .on("GetAccountSettings", accountSettings(1000, 900))
    .on("GetFunctionConfiguration", restJson(config))
    .on("GetAlias", restJsonError("ResourceNotFoundException", "Cannot find alias arn", 404))
    .on("HeadObject", { statusCode: 404, headers: {}, body: "" })
    .on(
      "GetTemplate",
      queryXml(
        "GetTemplate",
        `<TemplateBody>${escapeXml(JSON.stringify(region))}</TemplateBody><StagesAvailable><member>Original</member></StagesAvailable>`,
      ),
    );
}

describe("schedule create --dry-run", { skip: !built && "needs `npm run build`" }, () => {
  let stub: AwsStub;
  let out: string[];
  let run: StubbedCli;
  useStubbedAws((session) => ({ stub, out, run } = session));
  const create = () =>
    run(
      "schedule",
      "create",
      "--region",
      "us-west-2",
      "--preset",
      "seed",
      "--every",
      "rate(1 day)",
      "--parallelism",
      "2",
      "--dry-run",
    );

  test("a deployed region: preflight passes, what would be created, the held-back calls; only reads sent", async () => {
    account(stub, "deployed");
    await create();
    const text = out.join("\n");
    assert.ok(!process.exitCode, text);
    assert.ok(
      stub.operations().every((operation) => /^(Get|Describe|List|Head)/.test(operation)),
      `sent only reads: ${stub.operations().join(",")}`,
    );
    assert.match(text, /Dry run: schedule seed in us-west-2 would create/);
    assert.match(text, /StateMachine +AWS::StepFunctions::StateMachine +lambda-netbench-seed/);
    assert.match(text, /Schedule +AWS::Scheduler::Schedule +lambda-netbench-seed/);
    assert.match(text, /RecorderFunction +AWS::Lambda::Function +lambda-netbench-seed-recorder/);
    assert.match(text, /RecorderLogGroup +AWS::Logs::LogGroup +\/aws\/lambda\/lambda-netbench-seed-recorder/);
    // as read, whatever the wrapping
    assert.match(
      text.replace(/\s+/g, " "),
      /aliases of lambda-netbench-agent: s-seed-m1024-arm64, .*s-seed-m10240-arm64/,
    );
    assert.match(text, /inline Map, 2 at once/);
    assert.match(text, /all checks passed/);
    for (const held of [
      "Lambda.PublishVersion",
      "Lambda.CreateAlias",
      "S3.PutObject",
      "CloudFormation.UpdateStack",
    ])
      assert.match(text, new RegExp(`would call ${held.replace(".", "\\.")} \\(us-west-2\\)`), held);
    assert.match(text, /would call CloudFormation\.UpdateStack .*ScheduleSeed/);
    assert.match(text, /Dry run: nothing was created or changed/);
    assert.match(text, /would add the nested stack of schedule seed/);
    assert.doesNotMatch(text, /uploading|adding the nested/, "no progress line claims a held-back write");
  });

  test("no stack: the preflight says so, exit 1, and create's calls are not even tried", async () => {
    account(stub, "absent");
    await create();
    const text = out.join("\n");
    assert.equal(process.exitCode, 1, text);
    assert.match(text, /FAIL stack/);
    assert.match(text, /Dry run: nothing was created; fix the failed checks/);
    assert.ok(!stub.operations().includes("GetTemplate"));
    assert.ok(stub.operations().every((operation) => /^(Get|Describe|List|Head)/.test(operation)));
  });
});
