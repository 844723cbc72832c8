import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ec2ProductDocument, getProductsAnswer } from "../../helpers/price-list-product.js";
import {
  type AwsStub,
  accountSettings,
  callerIdentity,
  defaultVpcResponses,
  describeRegion,
  describeStacks,
  ec2Error,
  ec2Xml,
  json,
  jsonError,
  queryXml,
  restJsonError,
  type StubbedCli,
  stackDoesNotExist,
  useStubbedAws,
} from "./aws-stub.js";

/** IAM's policy simulator answering for the actions asked: `denied` implicitly denied, the rest allowed. */
const simulator = (denied: string[]) => (request: { input: Record<string, unknown> }) =>
  queryXml(
    "SimulatePrincipalPolicy",
    `<IsTruncated>false</IsTruncated><EvaluationResults>${Object.entries(request.input)
      .filter(([key]) => key.startsWith("ActionNames.member."))
      .map(
        ([, action]) =>
          `<member><EvalActionName>${action}</EvalActionName><EvalResourceName>*</EvalResourceName><EvalDecision>${denied.includes(String(action)) ? "implicitDeny" : "allowed"}</EvalDecision></member>`,
      )
      .join("")}</EvaluationResults>`,
  );

/** What `deploy --with-server --dry-run` asks in an account with a default VPC and no stack. */
const dryRunAccount = (stub: AwsStub) =>
  defaultVpcResponses(stub)
    .on("DescribeStacks", stackDoesNotExist)
    .on("GetParameter", json({ Parameter: { Name: "x", Value: "ami-0123456789abcdef0" } }))
    .on("GetCallerIdentity", callerIdentity());

const dryRunAnswer = ec2Error("DryRunOperation", "Request would have succeeded, but DryRun flag is set.");

/** The commands end to end: options -> SDK clients -> (stubbed) AWS -> what the user sees. */
describe("quota/deploy/teardown commands", () => {
  let stub: AwsStub;
  let out: string[];
  let run: StubbedCli;
  useStubbedAws((session) => ({ stub, out, run } = session), { fast: true });

  test("quota get over two regions: one row each, the value in force per region", async () => {
    stub
      .on("GetServiceQuota", (request) =>
        json({
          Quota: {
            QuotaCode: "L-14320ECE",
            QuotaName: "Network bandwidth per execution environment",
            Value: request.region === "us-west-2" ? 3000 : 625,
            Adjustable: true,
          },
        }),
      )
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", (request) =>
        json({
          RequestedQuotas:
            request.region === "us-west-2"
              ? [
                  {
                    Id: "r1",
                    CaseId: "case-77",
                    DesiredValue: 3000,
                    Status: "APPROVED",
                    Created: 1_785_000_000,
                  },
                ]
              : [],
        }),
      );
    await run("quota", "get", "--regions", "us-west-2,ap-northeast-1");
    const text = out.join("\n");
    assert.match(text, /region\s+in force \(Mbit\/s\)\s+AWS default \(Mbit\/s\)/);
    assert.match(text, /us-west-2\s+3000\s+625\s+code L-14320ECE\s+none\s+3000 APPROVED/);
    assert.match(text, /ap-northeast-1\s+625\s+625/);
    assert.deepEqual([...new Set(stub.requests.map((r) => r.region))], ["us-west-2", "ap-northeast-1"]);
  });

  test("quota request prints what happens next", async () => {
    stub
      .on("GetServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625, Adjustable: true } }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
      .on(
        "RequestServiceQuotaIncrease",
        json({ RequestedQuota: { Id: "r2", DesiredValue: 3000, Status: "PENDING" } }),
      );
    await run("quota", "request", "--regions", "us-west-2", "--value", "3000");
    const text = out.join("\n");
    assert.match(text, /requested 3000 Mbit\/s \(in force: 625\): request r2, status PENDING/);
    assert.match(text, /support case/);
    assert.match(text, /not guaranteed/);
  });

  test("quota request --dry-run: checks what is in force, lists the request, does not send it", async () => {
    stub
      .on("GetServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625, Adjustable: true } }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
    await run("quota", "request", "--regions", "us-west-2", "--value", "3000", "--dry-run");
    const text = out.join("\n");
    assert.match(
      text,
      /would call ServiceQuotas\.RequestServiceQuotaIncrease \(us-west-2\) \{"ServiceCode":"lambda","QuotaCode":"L-14320ECE","DesiredValue":3000\}/,
    );
    assert.ok(!stub.operations().includes("RequestServiceQuotaIncrease"));
    assert.ok(!process.exitCode);
  });

  test("deploy --dry-run prints the calls it would make and changes nothing", {
    skip: !existsSync("dist/agent/index.mjs") && "needs `npm run build`",
  }, async () => {
    dryRunAccount(stub)
      .on("CreateSecurityGroup", dryRunAnswer)
      .on(
        "RunInstances",
        dryRunAnswer,
        ec2Error(
          "UnauthorizedOperation",
          "You are not authorized to perform this operation. Encoded authorization failure message: abc",
        ),
      )
      // the test's own figure, not AWS's
      .on(
        "GetProducts",
        json(
          getProductsAnswer([
            ec2ProductDocument({
              region: "eu-west-1",
              instanceType: "c8gn.large",
              usdPerHour: "0.1234000000",
            }),
          ]),
        ),
      )
      .on("SimulatePrincipalPolicy", simulator(["lambda:PublishVersion"]));
    await run("deploy", "--region", "eu-west-1", "--with-server", "--dry-run");
    const text = out.join("\n");
    const errors = text;
    assert.match(
      errors,
      /the server instance with a public IPv4 address and the tags: allowed \(EC2 dry run\)/,
    );
    assert.match(errors, /the server's security group with the tags: allowed/);
    assert.match(
      errors,
      /1 of \d+ actions not allowed for arn:aws:iam::123456789012:role\/Operator: lambda:PublishVersion/,
    );
    const simulated = stub.requests.find((r) => r.operation === "SimulatePrincipalPolicy");
    assert.equal(simulated?.input.PolicySourceArn, "arn:aws:iam::123456789012:role/Operator");
    const launch = stub.requests.find((r) => r.operation === "RunInstances")?.input ?? {};
    assert.equal(launch.DryRun, "true");
    assert.equal(launch["NetworkInterface.1.AssociatePublicIpAddress"], "true");
    assert.equal(launch["TagSpecification.1.Tag.1.Key"], "lambda-netbench");
    // launched as the template launches it: metadata options, tags on volume and interface too
    assert.equal(launch["MetadataOptions.HttpPutResponseHopLimit"], "1");
    assert.equal(launch["MetadataOptions.InstanceMetadataTags"], "enabled");
    assert.equal(launch["MetadataOptions.HttpTokens"], "required");
    assert.deepEqual(
      [1, 2, 3].map((n) => launch[`TagSpecification.${n}.ResourceType`]),
      ["instance", "volume", "network-interface"],
    );
    assert.ok(
      stub.requests.some(
        (r) => r.operation === "SimulatePrincipalPolicy" && r.input["ResourceArns.member.1"] !== undefined,
      ),
      "the simulator is asked about the resources the tool acts on",
    );
    assert.equal(process.exitCode, 1, "an action the simulator denies fails the dry run");
    process.exitCode = 0;
    for (const call of [
      "CloudFormation.CreateStack (eu-west-1)",
      "S3.PutObject (eu-west-1)",
      "CloudFormation.UpdateStack (eu-west-1)",
    ])
      assert.ok(text.includes(`would call ${call}`), `${call} in:\n${text}`);
    assert.match(
      text,
      /EC2 server\s+3\.00 hours of c8gn\.large\s+\$0\.3702\n/,
      "the server's cost is shown before anything is created, priced by AWS's Price List API",
    );
    assert.match(text, /source: AWS Price List API \(GetProducts\), retrieved \d{4}-\d\d-\d\d\n/);
    // a read the dry run makes (and lists), in the one region the Price List API answers from
    assert.match(text, /\n {2}Pricing\.GetProducts \(us-east-1\) \{"ServiceCode":"AmazonEC2","Filters":\[/);
    assert.ok(
      stub.requests.every(
        (r) =>
          /^(Describe|Get)/.test(r.operation) ||
          r.input.DryRun === "true" ||
          r.operation === "SimulatePrincipalPolicy",
      ),
      stub.operations().join(","),
    );
    // a guardrail on public addresses: EC2's dry run says denied, before anything exists
    out.length = 0;
    await run("deploy", "--region", "eu-west-1", "--with-server", "--dry-run");
    assert.match(
      out.join("\n"),
      /the server instance with a public IPv4 address and the tags: DENIED \(EC2 dry run: UnauthorizedOperation/,
    );
    assert.match(out.join("\n"), /Dry run: 2 check\(s\) would be refused/);
    assert.equal(process.exitCode, 1);
    process.exitCode = 0;
  });

  test("deploy --dry-run where pricing:GetProducts is denied: price not in table with the reason, the dry run still passes", {
    skip: !existsSync("dist/agent/index.mjs") && "needs `npm run build`",
  }, async () => {
    dryRunAccount(stub)
      .on("CreateSecurityGroup", dryRunAnswer)
      .on("RunInstances", dryRunAnswer)
      .on(
        "GetProducts",
        jsonError(
          "AccessDeniedException",
          "User: arn:aws:sts::123456789012:assumed-role/Operator/alice is not authorized to perform: pricing:GetProducts",
        ),
      )
      .on("SimulatePrincipalPolicy", simulator(["pricing:GetProducts"]));
    await run("deploy", "--region", "eu-west-1", "--with-server", "--dry-run");
    const text = out.join("\n");
    assert.match(text, /EC2 server\s+3\.00 hours of c8gn\.large\s+price not in table/);
    assert.match(
      text.replace(/\s+/g, " "), // as read, whatever the wrapping
      /source: c8gn\.large is not in the price table; AWS's Price List API \(GetProducts\): no answer, pricing:GetProducts not allowed \(AccessDeniedException\); give the price with --server-usd-per-hour/,
    );
    // the simulator says so too, as optional: the dry run finds nothing that would be refused
    assert.match(
      text,
      /all \d+ required actions of the operator policy allowed for arn:aws:iam::123456789012:role\/Operator; not allowed: pricing:GetProducts \(optional: without it the estimate shows the server's price as not in the table\)/,
    );
    assert.match(text, /Dry run: the account's checks found nothing that would be refused/);
    assert.ok(!process.exitCode, `exit ${process.exitCode}:\n${text}`);
  });

  test("run --dry-run: a denied GetProducts leaves the server unpriced with the reason; nothing else changes", async () => {
    // the test's own figure, not AWS's; then the same account with pricing:GetProducts denied
    const priced = json(
      getProductsAnswer([
        ec2ProductDocument({ region: "eu-west-1", instanceType: "c8gn.large", usdPerHour: "0.1234000000" }),
      ]),
    );
    const refused = jsonError(
      "AccessDeniedException",
      "User: arn:aws:sts::123456789012:assumed-role/Operator/alice is not authorized to perform: pricing:GetProducts",
    );
    // the account has no stack: the preflight fails the same way whatever the price
    stub
      .on("GetProducts", priced, refused)
      .on("GetCallerIdentity", callerIdentity())
      .on("DescribeRegions", describeRegion("eu-west-1", "opt-in-not-required"))
      .on("DescribeStacks", stackDoesNotExist)
      .on("GetServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625, Adjustable: true } }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
      .on("GetAccountSettings", accountSettings(1000, 1000));
    const dryRun = async (...extra: string[]) => {
      out.length = 0;
      process.exitCode = 0;
      await run("run", "--preset", "seed", "--regions", "eu-west-1", "--dry-run", ...extra);
      return { text: out.join("\n"), exitCode: process.exitCode };
    };
    const withPrice = await dryRun();
    assert.match(withPrice.text, /EC2 server\s+3\.00 hours of c8gn\.large\s+\$0\.3702\n/);
    assert.match(withPrice.text, /source: AWS Price List API \(GetProducts\), retrieved \d{4}-\d\d-\d\d/);
    const denied = await dryRun();
    assert.match(denied.text, /EC2 server\s+3\.00 hours of c8gn\.large\s+price not in table/);
    assert.match(
      denied.text.replace(/\s+/g, " "), // as read, whatever the wrapping
      /source: c8gn\.large is not in the price table; AWS's Price List API \(GetProducts\): no answer, pricing:GetProducts not allowed \(AccessDeniedException\); give the price with --server-usd-per-hour/,
    );
    assert.match(denied.text, /Total\s+at least \$[\d.]+ \(\+ EC2 server: not in the price table\)/);
    const preflight = (text: string) => text.slice(text.indexOf("Preflight"));
    assert.match(preflight(denied.text), /FAIL stack\s+eu-west-1\s+no lambda-netbench stack/);
    assert.equal(preflight(denied.text), preflight(withPrice.text), "the preflight is the same");
    assert.equal(denied.exitCode, withPrice.exitCode, "the exit status is the same");
    assert.equal(denied.exitCode, 1, "(the missing stack fails it)");
    // --server-usd-per-hour prices what AWS would not, and wins over it: no lookup
    const asked = stub.operations().filter((op) => op === "GetProducts").length;
    const given = await dryRun("--server-usd-per-hour", "0.5");
    assert.match(given.text, /EC2 server\s+3\.00 hours of c8gn\.large\s+\$1\.50 \(verify\)/);
    assert.match(given.text, /source: given on the command line/);
    assert.equal(stub.operations().filter((op) => op === "GetProducts").length, asked);
    process.exitCode = 0;
  });

  test("run --dry-run prices what is deployed: the stack's server type for the run's hours, iperf3 traffic at the quota in force", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lnb-estimate-"));
    const planFile = join(dir, "plan.yaml");
    // one 10 s iperf3 download at 2,048 MB: 3.75 GB at 3,000 Mbit/s (0.78 GB at the default 625)
    await writeFile(
      planFile,
      [
        "name: deployed-estimate",
        "targets: [{ platform: aws, region: us-east-1 }]",
        "memoryMb: [2048]",
        "architectures: [arm64]",
        "repetitions: 1",
        "warmup: false",
        "probes:",
        "  - { kind: iperf3, timeSeconds: 10, parallel: 1, direction: download }",
        "",
      ].join("\n"),
    );
    const quota = { Quota: { QuotaCode: "L-14320ECE", Value: 3000, Adjustable: true } };
    // a server of another type than deploy's default, alive for 10 more hours; its status is not
    // readable here, so the preflight fails on the server (the estimate is printed all the same)
    stub
      .on("GetCallerIdentity", callerIdentity())
      .on("DescribeRegions", describeRegion("us-east-1", "opt-in-not-required"))
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", {
          BucketName: "lambda-netbench-bucket-1a2b3c",
          FunctionName: "lambda-netbench-agent",
          AgentCodeKey: "agent/abc.zip",
          ServerPublicIp: "198.18.0.1",
          ServerPorts: "5201-5201",
          ServerInstanceId: "i-1",
          ServerInstanceType: "c7gn.large",
          ServerExpiresAt: new Date(Date.now() + 10 * 3_600_000).toISOString(),
        }),
      )
      .on("GetServiceQuota", json(quota))
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
      .on("GetAccountSettings", accountSettings(1000, 1000))
      .on("GetParameter", jsonError("AccessDeniedException", "not authorized to perform: ssm:GetParameter"));
    try {
      await run("run", "--config", planFile, "--dry-run");
      const text = out.join("\n");
      // 120 s of preparation and one 12 s invocation: 0.04 hours, not deploy's 3-hour default
      assert.match(text, /EC2 server\s+0\.04 hours of c7gn\.large\s+\$0\.0046\n/, text);
      assert.match(text, /Data transfer\s+3\.75 GB\s/, text);
      assert.match(
        text.replace(/\s+/g, " "),
        /priced: the deployed server \(c7gn\.large\) for the run's 0\.04 hours; iperf3 traffic at the 3000 Mbit\/s quota in force/,
      );
      assert.ok(!stub.operations().includes("GetProducts"), "the table prices c7gn.large in us-east-1");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("teardown of an empty region: verified, exit code 0", async () => {
    stub
      .on("DescribeStacks", stackDoesNotExist)
      .on("GET /schedules", json({ Schedules: [] }))
      .on("ListAliases", restJsonError("ResourceNotFoundException", "Function not found", 404))
      .on("GetResources", json({ ResourceTagMappingList: [] }))
      .on("GetParametersByPath", json({ Parameters: [] }))
      .on("DescribeLogGroups", json({ logGroups: [] }))
      .on("GetServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 3000, Adjustable: true } }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: { QuotaCode: "L-14320ECE", Value: 625 } }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
    await run("teardown", "--region", "us-west-2");
    assert.match(out.join("\n"), /verified: nothing tagged lambda-netbench remains/);
    assert.match(out.join("\n"), /verified: no schedule of lambda-netbench remains/);
    assert.match(
      out.join("\n"),
      /verified gone by name: log-group \/aws\/lambda\/lambda-netbench-agent, log-group \/aws\/lambda\/lambda-netbench-\*/,
    );
    assert.match(
      out.join("\n"),
      /the bandwidth quota in us-west-2 stays at 3000 Mbit\/s \(AWS default 625\): a raised Lambda bandwidth quota stays raised/,
    );
    assert.ok(!process.exitCode);
  });

  test("teardown with something left: listed, exit code 1", async () => {
    stub
      .on("DescribeStacks", stackDoesNotExist)
      .on("GET /schedules", json({ Schedules: [] }))
      .on("ListAliases", restJsonError("ResourceNotFoundException", "Function not found", 404))
      .on(
        "GetResources",
        json({
          ResourceTagMappingList: [
            {
              ResourceARN: "arn:aws:logs:us-west-2:123456789012:log-group:/aws/lambda/lambda-netbench-agent",
            },
          ],
        }),
      )
      .on("GetParametersByPath", json({ Parameters: [] }))
      .on("DescribeLogGroups", json({ logGroups: [] }));
    await run("teardown", "--region", "us-west-2");
    assert.match(out.join("\n"), /log-group:\/aws\/lambda\/lambda-netbench-agent/);
    assert.equal(process.exitCode, 1);
  });
});

describe("--all-regions (breaker 12)", () => {
  let stub: AwsStub;
  let out: string[];
  let run: StubbedCli;
  useStubbedAws((session) => ({ stub, out, run } = session));

  test("quota history --all-regions skips opt-in regions that are not enabled", async () => {
    // DescribeRegions without AllRegions: the regions enabled for the account only
    const enabled = ["us-east-1", "us-west-2", "ap-northeast-1"];
    stub
      .on(
        "DescribeRegions",
        ec2Xml(
          "DescribeRegions",
          `<regionInfo>${enabled.map((r) => `<item><regionName>${r}</regionName><regionEndpoint>ec2.${r}.amazonaws.com</regionEndpoint><optInStatus>opt-in-not-required</optInStatus></item>`).join("")}</regionInfo>`,
        ),
      )
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
    await run("quota", "history", "--all-regions");
    const asked = new Set(
      stub.requests
        .filter((r) => r.operation === "ListRequestedServiceQuotaChangeHistoryByQuota")
        .map((r) => r.region),
    );
    assert.deepEqual([...asked].sort(), [...enabled].sort());
    assert.match(out.join("\n"), /skipping opt-in regions not enabled in this account: .*af-south-1/);
  });
});
