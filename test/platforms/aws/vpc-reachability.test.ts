import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { concurrencyMargin, fleetPreflightItems } from "../../../src/platforms/aws/fleet-preflight.js";
import { PlannedCallRecorder } from "../../../src/platforms/aws/planned-calls.js";
import { runPreflight } from "../../../src/platforms/aws/preflight.js";
import type { PreflightRegion } from "../../../src/platforms/aws/preflight-items.js";
import {
  describeVpcReachability,
  inCidr,
  type RouteTableFacts,
  vpcReachability,
} from "../../../src/platforms/aws/vpc-reachability.js";
import { scriptArgv } from "../../helpers/test-script.js";
import {
  AwsStub,
  accountSettings,
  callerIdentity,
  describeRegion,
  describeStacks,
  ec2Error,
  json,
  restJson,
  restJsonError,
  stubbedClients,
  testCredentials,
} from "./aws-stub.js";
import {
  allEgress,
  type Egress,
  otherVpcId,
  type Route,
  routeTables,
  s3Endpoint,
  s3Endpoints,
  s3PrefixList,
  securityGroups,
  subnetA,
  subnetB,
  subnets,
  userGroup,
  vpcId,
} from "./vpc-stub.js";

const region = "us-west-2";
const server = { vpcId, privateIp: "10.0.9.20", publicIp: "198.18.7.7", ports: [5201, 5202] };
const table = (
  id: string,
  subnetIds: string[],
  routes: RouteTableFacts["routes"],
  main = false,
): RouteTableFacts => ({
  routeTableId: id,
  vpcId,
  subnetIds,
  main,
  routes,
});
const openGroup = {
  groupId: userGroup,
  vpcId,
  egress: [{ ipProtocol: "-1", cidrs: ["0.0.0.0/0"], prefixListIds: [], groupIds: [] }],
};

describe("vpcReachability (pure): route tables, S3 gateway endpoints, security-group egress", () => {
  const base = {
    region,
    subnetIds: [subnetA],
    subnets: [{ subnetId: subnetA, vpcId }],
    s3Endpoints: [] as Array<{ endpointId: string; routeTableIds: string[] }>,
    securityGroup: openGroup,
    server,
  };

  test("gateway endpoint and the server in the same VPC: reached at its private address", () => {
    const result = vpcReachability({
      ...base,
      routeTables: [
        table("rtb-a", [subnetA], [{ destinationPrefixListId: s3PrefixList, gatewayId: s3Endpoint }]),
      ],
      s3Endpoints: [{ endpointId: s3Endpoint, routeTableIds: ["rtb-a"] }],
    });
    assert.deepEqual(result.problems, []);
    assert.match(result.notes.join("\n"), /S3 through the gateway endpoint/);
    assert.match(result.notes.join("\n"), /private address 10\.0\.9\.20 \(same VPC\)/);
  });

  test("a NAT default route reaches S3 and a server elsewhere, with its charge noted; the main table serves unassociated subnets", () => {
    const result = vpcReachability({
      ...base,
      routeTables: [
        table("rtb-main", [], [{ destinationCidr: "0.0.0.0/0", natGatewayId: "nat-0abc" }], true),
      ],
      server: { ...server, vpcId: otherVpcId },
    });
    assert.deepEqual(result.problems, []);
    assert.match(
      result.notes.join("\n"),
      /rtb-main\): S3 through NAT gateway nat-0abc \(its throughput and per-GB/,
    );
    assert.match(result.notes.join("\n"), /public address through the default route/);
  });

  test("only an internet gateway: no way to S3 nor to a server outside the VPC, each said with the fix", () => {
    const result = vpcReachability({
      ...base,
      routeTables: [table("rtb-a", [subnetA], [{ destinationCidr: "0.0.0.0/0", gatewayId: "igw-0abc" }])],
      server: { ...server, vpcId: otherVpcId },
    });
    const text = result.problems.join("\n");
    assert.equal(result.problems.length, 2, text);
    assert.match(text, /no route to S3 — add an S3 gateway endpoint \(com\.amazonaws\.us-west-2\.s3\)/);
    assert.match(text, /igw-0abc, an internet gateway: Lambda ENIs have no public address/);
    assert.match(text, /cannot reach the iperf3 server \(198\.18\.7\.7, outside vpc-/);
  });

  test("the server in the VPC on a stack without its private address: deploy again", () => {
    const result = vpcReachability({
      ...base,
      routeTables: [
        table("rtb-a", [subnetA], [{ destinationPrefixListId: s3PrefixList, gatewayId: s3Endpoint }]),
      ],
      s3Endpoints: [{ endpointId: s3Endpoint, routeTableIds: ["rtb-a"] }],
      server: { ...server, privateIp: null },
    });
    assert.match(
      result.problems.join(),
      /does not give its private address: run `lambda-netbench deploy --region us-west-2 --with-server` again/,
    );
  });

  test("a blackhole NAT route (the gateway was deleted) does not count", () => {
    const result = vpcReachability({
      ...base,
      routeTables: [
        table(
          "rtb-a",
          [subnetA],
          [{ destinationCidr: "0.0.0.0/0", natGatewayId: "nat-0gone", state: "blackhole" }],
        ),
      ],
      server: null,
    });
    assert.match(result.problems.join(), /nat-0gone is a blackhole/);
  });

  test("egress: HTTPS to S3 by prefix list only, server ports blocked; narrow CIDR covering the server's address", () => {
    const routes = [{ destinationPrefixListId: s3PrefixList, gatewayId: s3Endpoint }];
    const s3Only = vpcReachability({
      ...base,
      routeTables: [table("rtb-a", [subnetA], routes)],
      s3Endpoints: [{ endpointId: s3Endpoint, routeTableIds: ["rtb-a"] }],
      securityGroup: {
        groupId: userGroup,
        vpcId,
        egress: [
          {
            ipProtocol: "tcp",
            fromPort: 443,
            toPort: 443,
            cidrs: [],
            prefixListIds: [s3PrefixList],
            groupIds: [],
          },
        ],
      },
    });
    assert.equal(s3Only.problems.length, 1, s3Only.problems.join("\n"));
    assert.match(
      s3Only.problems[0] ?? "",
      /no egress rule lets tcp 5201-5202 out to the iperf3 server \(10\.0\.9\.20\)/,
    );
    const narrow = vpcReachability({
      ...base,
      routeTables: [table("rtb-a", [subnetA], routes)],
      s3Endpoints: [{ endpointId: s3Endpoint, routeTableIds: ["rtb-a"] }],
      securityGroup: {
        groupId: userGroup,
        vpcId,
        egress: [
          {
            ipProtocol: "tcp",
            fromPort: 443,
            toPort: 443,
            cidrs: ["0.0.0.0/0"],
            prefixListIds: [],
            groupIds: [],
          },
          {
            ipProtocol: "tcp",
            fromPort: 5201,
            toPort: 5216,
            cidrs: ["10.0.0.0/16"],
            prefixListIds: [],
            groupIds: [],
          },
        ],
      },
    });
    assert.deepEqual(narrow.problems, []);
    const noHttps = vpcReachability({
      ...base,
      routeTables: [table("rtb-a", [subnetA], routes)],
      s3Endpoints: [{ endpointId: s3Endpoint, routeTableIds: ["rtb-a"] }],
      securityGroup: { groupId: userGroup, vpcId, egress: [] },
      server: null,
    });
    assert.match(
      noHttps.problems.join(),
      /no egress rule lets HTTPS \(tcp 443\) out to S3: allow 0\.0\.0\.0\/0 or the S3 prefix list pl-68a54001/,
    );
  });

  test("subnets of two VPCs, an unknown subnet", () => {
    const result = vpcReachability({
      ...base,
      subnetIds: [subnetA, subnetB, "subnet-0999999999999999a"],
      subnets: [
        { subnetId: subnetA, vpcId },
        { subnetId: subnetB, vpcId: otherVpcId },
      ],
      routeTables: [
        table("rtb-a", [subnetA, subnetB], [{ destinationCidr: "0.0.0.0/0", natGatewayId: "nat-0abc" }]),
      ],
      server: null,
    });
    assert.match(result.problems.join("\n"), /subnet-0999999999999999a: not found in us-west-2/);
    assert.match(result.problems.join("\n"), /all must be in one VPC/);
  });

  test("inCidr", () => {
    assert.ok(inCidr("10.0.9.20", "10.0.0.0/16"));
    assert.ok(!inCidr("10.1.9.20", "10.0.0.0/16"));
    assert.ok(inCidr("198.18.7.7", "0.0.0.0/0"));
    assert.ok(inCidr("198.18.7.7", "198.18.7.7/32"));
    assert.ok(!inCidr("198.18.7.8", "198.18.7.7/32"));
    assert.ok(!inCidr("not-an-ip", "0.0.0.0/0"));
  });
});

// ---- on the real SDK clients, stubbed transport

const vpcOutputs = {
  BucketName: "lambda-netbench-bucket-1a2b3c",
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/current.zip",
  VpcFunctionName: "lambda-netbench-agent-vpc",
  VpcId: vpcId,
  VpcSubnetIds: `${subnetA},${subnetB}`,
  VpcSecurityGroupId: userGroup,
  VpcOwnSecurityGroup: "false",
  ServerPublicDnsName: "ec2-198-18-7-7.us-west-2.compute.amazonaws.com",
  ServerPublicIp: "198.18.7.7",
  ServerPrivateIp: "10.0.9.20",
  ServerVpcId: vpcId,
  ServerPorts: "5201-5202",
  ServerExpiresAt: "2026-11-30T18:00:00.000Z",
  ServerInstanceId: "i-0123456789abcdef0",
};
const functionConfig = (state: string, extra: Record<string, unknown> = {}) =>
  restJson({
    FunctionName: "lambda-netbench-agent-vpc",
    FunctionArn: "arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent-vpc",
    Runtime: "nodejs22.x",
    MemorySize: 2048,
    Architectures: ["arm64"],
    State: state,
    LastUpdateStatus: "Successful",
    VpcConfig: { SubnetIds: [subnetA, subnetB], SecurityGroupIds: [userGroup], VpcId: vpcId },
    ...extra,
  });

function vpcStub(
  options: { routes?: Route[]; endpointTables?: string[]; egress?: Egress[]; state?: string } = {},
): AwsStub {
  return new AwsStub()
    .on(
      "DescribeSubnets",
      subnets([
        { subnetId: subnetA, vpcId },
        { subnetId: subnetB, vpcId },
      ]),
    )
    .on(
      "DescribeRouteTables",
      routeTables([
        {
          id: "rtb-0main0000000000000",
          main: true,
          routes: [{ cidr: "0.0.0.0/0", gateway: "igw-0a1b2c3d4e5f60718" }],
        },
        {
          id: "rtb-0private00000000000",
          subnets: [subnetA, subnetB],
          routes: options.routes ?? [{ prefixList: s3PrefixList, gateway: s3Endpoint }],
        },
      ]),
    )
    .on(
      "DescribeVpcEndpoints",
      s3Endpoints(
        options.endpointTables === undefined
          ? [{ id: s3Endpoint, routeTableIds: ["rtb-0private00000000000"] }]
          : options.endpointTables.length === 0
            ? []
            : [{ id: s3Endpoint, routeTableIds: options.endpointTables }],
      ),
    )
    .on("DescribeSecurityGroups", securityGroups([{ id: userGroup, egress: options.egress ?? allEgress }]))
    .on("GetFunctionConfiguration", functionConfig(options.state ?? "Active"));
}

describe("describeVpcReachability on the real EC2 and Lambda clients (EC2's XML, stubbed transport)", () => {
  test("private subnets with the S3 gateway endpoint, the server in the VPC: no problem; the calls filter by VPC and S3's service name", async () => {
    const stub = vpcStub();
    const report = await describeVpcReachability(stubbedClients(stub, { region }), vpcOutputs, region, true);
    assert.deepEqual(report.problems, []);
    assert.equal(report.state, "Active");
    assert.match(
      report.notes.join("\n"),
      /subnet-0aaa1111bbbb22223 \(rtb-0private00000000000\): S3 through the gateway endpoint/,
    );
    const byOp = Object.fromEntries(stub.requests.map((r) => [r.operation, r.input]));
    assert.equal(byOp.DescribeRouteTables?.["Filter.1.Name"], "vpc-id");
    assert.equal(byOp.DescribeRouteTables?.["Filter.1.Value.1"], vpcId);
    assert.equal(byOp.DescribeVpcEndpoints?.["Filter.2.Value.1"], "com.amazonaws.us-west-2.s3");
    assert.equal(byOp.DescribeVpcEndpoints?.["Filter.3.Value.1"], "Gateway");
    assert.ok(stub.requests.every((r) => /^(Describe|Get)/.test(r.operation)));
  });

  test("subnets on the main table's internet gateway: problems, not notes; a Failed function says why", async () => {
    const stub = new AwsStub()
      .on("DescribeSubnets", subnets([{ subnetId: subnetA, vpcId }]))
      .on(
        "DescribeRouteTables",
        routeTables([
          {
            id: "rtb-0main0000000000000",
            main: true,
            routes: [{ cidr: "0.0.0.0/0", gateway: "igw-0a1b2c3d4e5f60718" }],
          },
        ]),
      )
      .on("DescribeVpcEndpoints", s3Endpoints([]))
      .on("DescribeSecurityGroups", securityGroups([{ id: userGroup, egress: allEgress }]))
      .on(
        "GetFunctionConfiguration",
        functionConfig("Failed", {
          StateReasonCode: "SubnetOutOfIPAddresses",
          StateReason: "All specified subnets do not have enough free IP addresses.",
        }),
      );
    const report = await describeVpcReachability(
      stubbedClients(stub, { region }),
      { ...vpcOutputs, VpcSubnetIds: subnetA, ServerVpcId: otherVpcId },
      region,
      true,
    );
    const text = report.problems.join("\n");
    assert.match(text, /no route to S3.*igw-0a1b2c3d4e5f60718, an internet gateway/);
    assert.match(text, /cannot reach the iperf3 server/);
    assert.match(
      text,
      /Failed \(SubnetOutOfIPAddresses: All specified subnets do not have enough free IP addresses\.\)/,
    );
  });
});

const quota = {
  Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 3000 },
};
function account(stub: AwsStub, outputs: Record<string, string>, unreserved = 900): AwsStub {
  return stub
    .on("GetCallerIdentity", callerIdentity())
    .on("DescribeRegions", describeRegion(region, "opt-in-not-required"))
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json({ Quota: { ...quota.Quota, Value: 625 } }))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }))
    .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", outputs))
    .on(
      "GetParameter",
      json({
        Parameter: {
          Name: "/lambda-netbench/iperf3/server-status",
          Type: "String",
          Value: JSON.stringify({
            version: "3.16",
            padding: "pkcs1",
            ports: "5201-5202",
            instanceId: "i-0123456789abcdef0",
          }),
        },
      }),
    )
    .on("GetAccountSettings", accountSettings(1000, unreserved));
}
const vpcRegion: PreflightRegion = {
  region,
  needsServer: true,
  durationSeconds: 600,
  startsInSeconds: 0,
  vpc: true,
  largestFleet: 1,
};
const now = new Date("2026-11-30T12:00:00Z");
async function preflight(stub: AwsStub, target: PreflightRegion = vpcRegion, parallelism = 1) {
  return runPreflight({
    regions: [target],
    parallelism,
    expectedAgentCodeKey: () => "agent/current.zip",
    credentials: testCredentials,
    requestHandler: stub.handler,
    recorder: new PlannedCallRecorder(true),
    handshake: async () => "ready",
    now: () => now,
  });
}
const failedItems = (result: Awaited<ReturnType<typeof runPreflight>>) =>
  result.items.filter((i) => i.status === "failed").map((i) => `${i.check}: ${i.detail}`);

describe("the preflight of a VPC plan and of fleets (runPreflight, real clients, stubbed transport)", () => {
  test("a ready VPC function: the vpc item passes after the others", async () => {
    const result = await preflight(account(vpcStub(), vpcOutputs));
    assert.deepEqual(failedItems(result), []);
    assert.deepEqual(
      result.items.map((i) => i.check),
      ["credentials", "region", "quota", "stack", "server", "concurrency", "vpc"],
    );
    assert.match(result.items.at(-1)?.detail ?? "", /lambda-netbench-agent-vpc \(Active\) in vpc-/);
  });

  test("a VPC plan on a stack without the VPC function: failed, naming the deploy flags", async () => {
    const { VpcFunctionName: _drop, ...plain } = vpcOutputs;
    const result = await preflight(account(new AwsStub(), plain));
    assert.deepEqual(failedItems(result), [
      "vpc: vpc: the plan runs cells in a VPC, but the lambda-netbench stack in us-west-2 has no VPC function: run `lambda-netbench deploy --region us-west-2 --vpc-subnets subnet-...,subnet-... [--vpc-security-group sg-...]` (the subnets must reach S3 and the iperf3 server), or drop `true` from the plan's `vpc`",
    ]);
    assert.equal(result.ok, false);
  });

  test("each problem its own failed item: no route to S3, server ports blocked by the group", async () => {
    const stub = account(
      vpcStub({
        routes: [],
        endpointTables: [],
        egress: [{ protocol: "tcp", from: 443, to: 443, cidrs: ["0.0.0.0/0"] }],
      }),
      vpcOutputs,
    );
    const failed = failedItems(await preflight(stub));
    assert.equal(failed.filter((f) => f.startsWith("vpc: subnet")).length, 2, failed.join("\n"));
    assert.ok(
      failed.every((f) => f.startsWith("vpc: ")),
      failed.join("\n"),
    );
    assert.match(
      failed.join("\n"),
      /security group sg-0123456789abcdef0: no egress rule lets tcp 5201-5202 out/,
    );
  });

  test("a read the operator may not make (EC2 UnauthorizedOperation, 403): a failed vpc item naming it", async () => {
    const denied = {
      ...ec2Error(
        "UnauthorizedOperation",
        "You are not authorized to perform this operation. User: arn:aws:sts::123456789012:assumed-role/Operator/alice is not authorized to perform: ec2:DescribeVpcEndpoints",
      ),
      statusCode: 403,
    };
    const stub = account(new AwsStub(), vpcOutputs)
      .on("DescribeSubnets", subnets([{ subnetId: subnetA, vpcId }]))
      .on("DescribeRouteTables", routeTables([]))
      .on("DescribeVpcEndpoints", denied)
      .on("DescribeSecurityGroups", securityGroups([{ id: userGroup, egress: allEgress }]))
      .on("GetFunctionConfiguration", functionConfig("Active"));
    const failed = failedItems(await preflight(stub));
    assert.equal(failed.length, 1, failed.join("\n"));
    assert.match(
      failed[0] ?? "",
      /^vpc: ec2\/lambda \(VPC function lambda-netbench-agent-vpc\): UnauthorizedOperation: You are not authorized/,
    );
  });

  test("the VPC function missing in Lambda (ResourceNotFoundException): a failed vpc item", async () => {
    const missing = account(new AwsStub(), vpcOutputs)
      .on("DescribeSubnets", subnets([{ subnetId: subnetA, vpcId }]))
      .on("DescribeRouteTables", routeTables([]))
      .on("DescribeVpcEndpoints", s3Endpoints([]))
      .on("DescribeSecurityGroups", securityGroups([{ id: userGroup, egress: allEgress }]))
      .on(
        "GetFunctionConfiguration",
        restJsonError(
          "ResourceNotFoundException",
          "Function not found: arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent-vpc",
          404,
        ),
      );
    assert.match(
      failedItems(await preflight(missing)).join(),
      /vpc: .*ResourceNotFoundException: Function not found/,
    );
  });

  test("fleets: max(parallelism, largest fleet) against unreserved concurrency less a tenth", async () => {
    const plain = {
      BucketName: "b",
      FunctionName: "lambda-netbench-agent",
      AgentCodeKey: "agent/current.zip",
    };
    const fleet = (largestFleet: number, unreserved: number, parallelism = 1) =>
      preflight(
        account(new AwsStub(), plain, unreserved),
        { region, needsServer: false, durationSeconds: 60, startsInSeconds: 0, largestFleet },
        parallelism,
      );
    const ok = await fleet(16, 100);
    assert.deepEqual(failedItems(ok), []);
    assert.match(
      ok.items.at(-1)?.detail ?? "",
      /up to 16 invocations at once \(parallelism 1, largest fleet 16\); unreserved concurrency 100, of which 10 kept/,
    );
    const tight = await fleet(10, 10);
    assert.match(
      failedItems(tight).join(),
      /fleet: up to 10 invocations at once .* unreserved concurrency 10, of which 1 kept.*at most 9/,
    );
    // parallelism above the fleet size: parallelism is the peak
    assert.match(failedItems(await fleet(4, 20, 19)).join(), /fleet: up to 19 invocations at once/);
    // no fleet, no fleet item
    const single = await fleet(1, 10);
    assert.ok(!single.items.some((i) => i.check === "fleet"));
    assert.equal(concurrencyMargin(1000), 100);
    assert.equal(concurrencyMargin(3), 1);
  });

  test("fleetPreflightItems without the account settings: skipped, not passed", async () => {
    const items = await fleetPreflightItems(
      stubbedClients(new AwsStub(), { region }),
      { region, needsServer: false, durationSeconds: 60, startsInSeconds: 0, largestFleet: 4 },
      null,
      1,
      null,
    );
    assert.deepEqual(
      items.map((i) => [i.check, i.status]),
      [["fleet", "skipped"]],
    );
  });
});

describe("without network", () => {
  const isolated = process.getuid?.() === 0 && spawnSync("unshare", ["--net", "true"]).status === 0;
  test("the preflight of a VPC plan with a fleet fails fast with every item named (no hang)", {
    skip: !isolated && "needs root to make a namespace without network",
  }, () => {
    const script = new URL("./vpc-preflight-offline.ts", import.meta.url);
    const run = spawnSync("unshare", ["--net", process.execPath, ...scriptArgv(script)], {
      encoding: "utf8",
      timeout: 90_000,
      env: { ...process.env, AWS_EC2_METADATA_DISABLED: "true" },
    });
    assert.equal(run.status, 0, run.stderr);
    const answer = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    assert.equal(answer.ok, false);
    const failed = answer.items.filter((i: { status: string }) => i.status === "failed");
    // concurrency and the VPC reads find no network: each item says so; the quota read failing
    // leaves the run possible (unchecked, said why); the fleet item needs the account's settings
    assert.ok(failed.length >= 2, run.stdout);
    for (const item of failed) assert.match(item.detail, /no network or DNS|no connection/, item.detail);
    const byCheck = Object.fromEntries(
      answer.items.map((i: { check: string; status: string }) => [i.check, i.status]),
    );
    const quota = answer.items.find((i: { check: string }) => i.check === "quota");
    assert.equal(quota?.status, "unchecked", run.stdout);
    assert.match(quota.detail, /no network or DNS/);
    assert.equal(byCheck.concurrency, "failed");
    assert.equal(byCheck.vpc, "failed");
    assert.equal(byCheck.fleet, "skipped");
    // a busy 2-core machine: generous, but far below a hang
    assert.ok(answer.seconds < 60, `${answer.seconds} s`);
    console.log(
      `VPC/fleet preflight without network: ${answer.seconds.toFixed(1)} s, ${answer.items.length} items`,
    );
  });
});
