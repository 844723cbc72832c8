import assert from "node:assert/strict";
import { test } from "node:test";
import { deployStack } from "../../../src/platforms/aws/deploy.js";
import { operatorPolicyActions } from "../../../src/platforms/aws/operator-policy.js";
import {
  concreteArn,
  principalArnCandidates,
  simulationRequests,
} from "../../../src/platforms/aws/policy-simulation.js";
import {
  AwsStub,
  queryError,
  queryXml,
  type StubResponse,
  stackDoesNotExist,
  stubbedClients,
  stubDeployOptions,
} from "./aws-stub.js";

const context = {
  partition: "aws",
  region: "eu-west-1",
  account: "123456789012",
  tags: [
    { Key: "lambda-netbench", Value: "managed" },
    { Key: "cost-center", Value: "42" },
  ],
};

test("a resource pattern becomes one ARN it matches, in the caller's region and account", () => {
  assert.equal(
    concreteArn("arn:aws:lambda:*:*:function:lambda-netbench-agent", context),
    "arn:aws:lambda:eu-west-1:123456789012:function:lambda-netbench-agent",
  );
  assert.equal(
    concreteArn("arn:aws:s3:::lambda-netbench-bucket-*/*", context),
    "arn:aws:s3:::lambda-netbench-bucket-x/x",
  );
  assert.equal(concreteArn("arn:aws:ec2:*::image/*", context), "arn:aws:ec2:eu-west-1::image/x");
  assert.equal(concreteArn("*", context), undefined);
});

test("every statement is simulated with its resource and the context its calls carry", () => {
  const requests = simulationRequests(context);
  // every action of the policy is asked
  assert.deepEqual(new Set(requests.flatMap((request) => request.actions)), operatorPolicyActions());
  const lambda = requests.find((request) => request.actions.includes("lambda:CreateFunction"));
  assert.deepEqual(lambda?.resourceArns, [
    "arn:aws:lambda:eu-west-1:123456789012:function:lambda-netbench-agent",
  ]);
  const entry = (name: string) =>
    lambda?.contextEntries.find((candidate) => candidate.ContextKeyName === name)?.ContextKeyValues;
  assert.deepEqual(entry("aws:RequestedRegion"), ["eu-west-1"]);
  assert.deepEqual(entry("aws:RequestTag/cost-center"), ["42"]);
  assert.deepEqual(entry("aws:TagKeys"), ["lambda-netbench", "cost-center"]);
  // the conditions of the tag-scoped EC2 statements hold, as the tool's calls meet them
  const change = requests.find((request) => request.actions.includes("ec2:TerminateInstances"));
  assert.deepEqual(
    change?.contextEntries.find((e) => e.ContextKeyName === "aws:ResourceTag/lambda-netbench")
      ?.ContextKeyValues,
    ["managed"],
  );
  const pass = requests.find((request) => request.actions.join() === "iam:PassRole");
  assert.deepEqual(
    pass?.contextEntries.find((e) => e.ContextKeyName === "iam:PassedToService")?.ContextKeyValues,
    ["lambda.amazonaws.com"],
  );
});

test("an Identity Center role keeps its path; a plain role is tried at / first", () => {
  const sso = "arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Bench_0123456789abcdef/alice";
  assert.deepEqual(principalArnCandidates(sso, "eu-west-1").slice(0, 2), [
    "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Bench_0123456789abcdef",
    "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Bench_0123456789abcdef",
  ]);
  assert.deepEqual(principalArnCandidates(sso, "eu-west-1", "/aws-reserved/sso.amazonaws.com/us-west-2/"), [
    "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/us-west-2/AWSReservedSSO_Bench_0123456789abcdef",
  ]);
  assert.deepEqual(
    principalArnCandidates("arn:aws:sts::123456789012:assumed-role/Operator/alice", "eu-west-1"),
    ["arn:aws:iam::123456789012:role/Operator"],
  );
  const user = "arn:aws:iam::123456789012:user/alice";
  assert.deepEqual(principalArnCandidates(user, "eu-west-1"), [user]);
});

const ssoIdentity: StubResponse = {
  statusCode: 200,
  headers: { "content-type": "text/xml" },
  body: `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Bench_0123456789abcdef/alice</Arn><UserId>AROAEXAMPLE:alice</UserId><Account>123456789012</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
};

test("deploy --dry-run as an Identity Center user: the simulator is asked about the role at its path", async () => {
  const rolePath = "/aws-reserved/sso.amazonaws.com/eu-central-1/";
  const roleArn = `arn:aws:iam::123456789012:role${rolePath}AWSReservedSSO_Bench_0123456789abcdef`;
  const stub = new AwsStub()
    .on("DescribeStacks", stackDoesNotExist)
    .on("GetCallerIdentity", ssoIdentity)
    .on("GetRole", queryError("AccessDenied", "not authorized to perform: iam:GetRole", 403))
    .on("SimulatePrincipalPolicy", (request) =>
      request.input.PolicySourceArn === roleArn
        ? queryXml(
            "SimulatePrincipalPolicy",
            `<IsTruncated>false</IsTruncated><EvaluationResults>${Object.entries(request.input)
              .filter(([key]) => key.startsWith("ActionNames.member."))
              .map(
                ([, action]) =>
                  `<member><EvalActionName>${action}</EvalActionName><EvalResourceName>x</EvalResourceName><EvalDecision>allowed</EvalDecision></member>`,
              )
              .join("")}</EvaluationResults>`,
          )
        : queryError(
            "NoSuchEntity",
            `The role with name ${String(request.input.PolicySourceArn)} cannot be found.`,
            404,
          ),
    );
  const result = await deployStack(stubbedClients(stub, { dryRun: true }), stubDeployOptions);
  const simulated = stub.requests.filter((request) => request.operation === "SimulatePrincipalPolicy");
  const sources = [...new Set(simulated.map((request) => request.input.PolicySourceArn))];
  // the deploy region's path, GetRole (denied), the path without a region, then the likely homes
  assert.equal(sources.at(-1), roleArn, sources.join(", "));
  assert.match(
    result.dryRunFindings[0]?.detail ?? "",
    /actions of the operator policy allowed for arn:aws:iam::123456789012:role\/aws-reserved\/sso\.amazonaws\.com\/eu-central-1\//,
  );
  // once found, every statement is asked with a resource and the region as context
  const asked = simulated.filter((request) => request.input.PolicySourceArn === roleArn);
  assert.ok(asked.length > 5, `${asked.length} statements`);
  assert.ok(
    asked.some((request) =>
      String(request.input["ResourceArns.member.1"]).startsWith(
        "arn:aws:lambda:us-west-2:123456789012:function:",
      ),
    ),
  );
  assert.ok(
    asked.every((request) =>
      Object.entries(request.input).some(
        ([key, value]) => key.startsWith("ContextEntries.member.") && value === "aws:RequestedRegion",
      ),
    ),
  );
});
