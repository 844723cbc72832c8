// biome-ignore-all lint/suspicious/noExplicitAny: asserts on the template as plain JSON
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub placeholders
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AwsInputError } from "../../../src/platforms/aws/aws-input.js";
import { deployStack } from "../../../src/platforms/aws/deploy.js";
import { buildStackTemplate, type StackTemplateOptions } from "../../../src/platforms/aws/stack-template.js";
import { vpcVariantProblem } from "../../../src/platforms/aws/vpc-cells.js";
import {
  parseVpcOptions,
  resolveVpcVariant,
  vpcFunctionName,
  vpcVariantFromOutputs,
} from "../../../src/platforms/aws/vpc-variant.js";
import {
  AwsStub,
  describeStacks,
  ec2Error,
  queryXml,
  stackId,
  stubbedCli,
  stubbedClients,
  stubDeployOptions,
} from "./aws-stub.js";
import { validateTemplate } from "./cfn-schema-validator.js";
import { otherVpcId, securityGroups, subnetA, subnetB, subnets, userGroup, vpcId } from "./vpc-stub.js";

const inputError = (field: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof AwsInputError, String(error));
  assert.equal(error.field, field);
  assert.match(error.message, pattern);
  return true;
};

describe("deploy --vpc-subnets / --vpc-security-group: checked before any call", () => {
  test("well-formed ids pass, trimmed, in order", () => {
    assert.deepEqual(parseVpcOptions(` ${subnetA}, ${subnetB} `, undefined), {
      subnetIds: [subnetA, subnetB],
      securityGroupId: null,
    });
    assert.deepEqual(parseVpcOptions(subnetA, userGroup), {
      subnetIds: [subnetA],
      securityGroupId: userGroup,
    });
  });

  for (const [subnets, group, field, pattern] of [
    ["", undefined, "vpc-subnets", /1 to 16 subnet ids/],
    [",,", undefined, "vpc-subnets", /got 0/],
    ["subnet-xyz", undefined, "vpc-subnets", /"subnet-xyz" is not a subnet id/],
    [
      `${subnetA},sg-0123456789abcdef0`,
      undefined,
      "vpc-subnets",
      /"sg-0123456789abcdef0" is not a subnet id/,
    ],
    [`${subnetA},${subnetA}`, undefined, "vpc-subnets", /each subnet at most once/],
    [
      Array.from({ length: 17 }, (_, i) => `subnet-0${String(i).padStart(16, "a")}`).join(","),
      undefined,
      "vpc-subnets",
      /got 17/,
    ],
    [subnetA, "default", "vpc-security-group", /"default" is not a security group id/],
    [undefined, userGroup, "vpc-security-group", /needs --vpc-subnets/],
  ] as const) {
    test(`${subnets === undefined ? "(none)" : JSON.stringify(subnets).slice(0, 40)} ${group ?? ""} -> ${field}`, () => {
      assert.throws(() => parseVpcOptions(subnets, group), inputError(field, pattern));
    });
  }
});

describe("resolveVpcVariant on the real EC2 client (stubbed transport, EC2's XML and errors)", () => {
  test("two subnets of one VPC and the user's group in it: the VPC id, reads only", async () => {
    const stub = new AwsStub()
      .on(
        "DescribeSubnets",
        subnets([
          { subnetId: subnetA, vpcId },
          { subnetId: subnetB, vpcId },
        ]),
      )
      .on("DescribeSecurityGroups", securityGroups([{ id: userGroup, egress: [] }]));
    const resolved = await resolveVpcVariant(
      stubbedClients(stub).ec2,
      { subnetIds: [subnetA, subnetB], securityGroupId: userGroup },
      "us-west-2",
    );
    assert.deepEqual(resolved, { subnetIds: [subnetA, subnetB], securityGroupId: userGroup, vpcId });
    assert.deepEqual(stub.operations(), ["DescribeSubnets", "DescribeSecurityGroups"]);
    assert.equal(stub.requests[0]?.input["SubnetId.1"], subnetA);
    assert.equal(stub.requests[0]?.input["SubnetId.2"], subnetB);
    assert.equal(stub.requests[1]?.input["GroupId.1"], userGroup);
  });

  test("an unknown subnet: EC2's InvalidSubnetID.NotFound becomes an error naming --vpc-subnets", async () => {
    const stub = new AwsStub().on(
      "DescribeSubnets",
      ec2Error("InvalidSubnetID.NotFound", `The subnet ID '${subnetB}' does not exist`),
    );
    await assert.rejects(
      resolveVpcVariant(
        stubbedClients(stub).ec2,
        { subnetIds: [subnetA, subnetB], securityGroupId: null },
        "us-west-2",
      ),
      inputError("vpc-subnets", new RegExp(`The subnet ID '${subnetB}' does not exist \\(in us-west-2\\)`)),
    );
  });

  test("subnets of two VPCs; a group of another VPC; a group that does not exist", async () => {
    const twoVpcs = new AwsStub().on(
      "DescribeSubnets",
      subnets([
        { subnetId: subnetA, vpcId },
        { subnetId: subnetB, vpcId: otherVpcId },
      ]),
    );
    await assert.rejects(
      resolveVpcVariant(
        stubbedClients(twoVpcs).ec2,
        { subnetIds: [subnetA, subnetB], securityGroupId: null },
        "us-west-2",
      ),
      inputError("vpc-subnets", /in 2 VPCs .*one VPC/),
    );
    const foreignGroup = new AwsStub()
      .on("DescribeSubnets", subnets([{ subnetId: subnetA, vpcId }]))
      .on("DescribeSecurityGroups", securityGroups([{ id: userGroup, vpc: otherVpcId, egress: [] }]));
    await assert.rejects(
      resolveVpcVariant(
        stubbedClients(foreignGroup).ec2,
        { subnetIds: [subnetA], securityGroupId: userGroup },
        "us-west-2",
      ),
      inputError(
        "vpc-security-group",
        new RegExp(`${userGroup} is in ${otherVpcId}, the subnets in ${vpcId}`),
      ),
    );
    const noGroup = new AwsStub()
      .on("DescribeSubnets", subnets([{ subnetId: subnetA, vpcId }]))
      .on(
        "DescribeSecurityGroups",
        ec2Error("InvalidGroup.NotFound", `The security group '${userGroup}' does not exist`),
      );
    await assert.rejects(
      resolveVpcVariant(
        stubbedClients(noGroup).ec2,
        { subnetIds: [subnetA], securityGroupId: userGroup },
        "us-west-2",
      ),
      inputError("vpc-security-group", /does not exist \(in us-west-2\)/),
    );
  });
});

const base: StackTemplateOptions = {
  agentCodeKey: "agent/abc.zip",
  arch: "arm64",
  memoryMb: 2048,
  timeoutSeconds: 900,
  server: null,
};
const withServer: StackTemplateOptions = {
  ...base,
  server: {
    instanceType: "c8gn.large",
    ports: 4,
    generation: 1,
    expiresAt: "2026-11-30T00:00:00.000Z",
    idleTimeoutSeconds: 30,
    imageId: "ami-0123456789abcdef0",
    vpcId,
    subnetId: "subnet-0eee5555ffff66667",
  },
};

describe("the template with --vpc-subnets, against AWS's resource schemas (@aws-cdk/aws-service-spec)", () => {
  for (const [name, options] of [
    ["own security group", { ...base, vpc: { vpcId, subnetIds: [subnetA, subnetB], securityGroupId: null } }],
    [
      "the user's security group",
      { ...base, vpc: { vpcId, subnetIds: [subnetA], securityGroupId: userGroup } },
    ],
    [
      "with the iperf3 server",
      { ...withServer, vpc: { vpcId, subnetIds: [subnetA, subnetB], securityGroupId: null } },
    ],
  ] as Array<[string, StackTemplateOptions]>) {
    test(`${name}: every resource type and property valid`, () => {
      const template = buildStackTemplate(options);
      assert.deepEqual(validateTemplate(template), []);
      assert.ok(template.Resources.AgentFunction && template.Resources.AgentVpcFunction);
    });
  }

  test("no VPC function on the first pass (bucket only) or without the option", () => {
    const vpc = { vpcId, subnetIds: [subnetA], securityGroupId: null };
    assert.equal(
      buildStackTemplate({ ...base, agentCodeKey: null, vpc }).Resources.AgentVpcFunction,
      undefined,
    );
    assert.equal(buildStackTemplate(base).Resources.AgentVpcFunction, undefined);
    assert.equal(buildStackTemplate(base).Outputs.VpcFunctionName, undefined);
  });

  test("the VPC function: subnets and group, a group with no ingress, ENI permissions only on its own role", () => {
    const template = buildStackTemplate({
      ...base,
      vpc: { vpcId, subnetIds: [subnetA, subnetB], securityGroupId: null },
    }) as any;
    const r = template.Resources;
    const fn = r.AgentVpcFunction.Properties;
    assert.equal(fn.FunctionName, vpcFunctionName);
    assert.deepEqual(fn.VpcConfig, {
      SubnetIds: [subnetA, subnetB],
      SecurityGroupIds: [{ "Fn::GetAtt": ["AgentVpcSecurityGroup", "GroupId"] }],
    });
    assert.deepEqual(fn.Code, r.AgentFunction.Properties.Code, "the same agent build");
    assert.ok(r.AgentVpcFunction.DependsOn.includes("AgentVpcRole"));
    const group = r.AgentVpcSecurityGroup.Properties;
    assert.equal(group.VpcId, vpcId);
    assert.equal(group.SecurityGroupIngress, undefined);
    const statements = r.AgentVpcRole.Properties.Policies[0].PolicyDocument.Statement;
    const bySid = Object.fromEntries(statements.map((s: any) => [s.Sid, s]));
    // every action of AWSLambdaVPCAccessExecutionRole except logs:CreateLogGroup (the stack makes the group)
    const actions = statements.flatMap((s: any) => s.Action).sort();
    for (const action of [
      "ec2:AssignPrivateIpAddresses",
      "ec2:CreateNetworkInterface",
      "ec2:DeleteNetworkInterface",
      "ec2:DescribeNetworkInterfaces",
      "ec2:DescribeSubnets",
      "ec2:UnassignPrivateIpAddresses",
      "logs:CreateLogStream",
      "logs:PutLogEvents",
    ])
      assert.ok(actions.includes(action), action);
    assert.ok(!actions.includes("logs:CreateLogGroup"));
    // only the describes take "*"
    for (const s of statements.filter((s: any) => s.Resource === "*"))
      assert.ok(
        s.Action.every((a: string) => a.startsWith("ec2:Describe")),
        s.Sid,
      );
    const account = "arn:${AWS::Partition}:ec2:${AWS::Region}:${AWS::AccountId}:";
    assert.deepEqual(bySid.CreateEnisInTheseSubnets.Resource, [
      { "Fn::Sub": `${account}network-interface/*` },
      { "Fn::Sub": `${account}subnet/${subnetA}` },
      { "Fn::Sub": `${account}subnet/${subnetB}` },
      { "Fn::Sub": `${account}security-group/\${AgentVpcSecurityGroup.GroupId}` },
    ]);
    assert.deepEqual(bySid.ManageEnis.Resource, { "Fn::Sub": `${account}network-interface/*` });
    // the non-VPC function's role gains nothing
    const plain = JSON.stringify(r.AgentRole);
    assert.ok(!plain.includes("ec2:"), plain);
    assert.equal(r.AgentFunction.Properties.VpcConfig, undefined);
    // outputs the platform and the preflight read
    assert.deepEqual(template.Outputs.VpcFunctionName.Value, { Ref: "AgentVpcFunction" });
    assert.equal(template.Outputs.VpcSubnetIds.Value, `${subnetA},${subnetB}`);
    assert.equal(template.Outputs.VpcId.Value, vpcId);
    assert.equal(template.Outputs.VpcOwnSecurityGroup.Value, "true");
  });

  test("the user's group: used as given, none created, CreateNetworkInterface scoped to it", () => {
    const template = buildStackTemplate({
      ...base,
      vpc: { vpcId, subnetIds: [subnetA], securityGroupId: userGroup },
    }) as any;
    assert.equal(template.Resources.AgentVpcSecurityGroup, undefined);
    assert.deepEqual(template.Resources.AgentVpcFunction.Properties.VpcConfig.SecurityGroupIds, [userGroup]);
    const create = template.Resources.AgentVpcRole.Properties.Policies[0].PolicyDocument.Statement.find(
      (s: any) => s.Sid === "CreateEnisInTheseSubnets",
    );
    assert.deepEqual(create.Resource.at(-1), {
      "Fn::Sub": `arn:\${AWS::Partition}:ec2:\${AWS::Region}:\${AWS::AccountId}:security-group/${userGroup}`,
    });
    assert.equal(template.Outputs.VpcSecurityGroupId.Value, userGroup);
    assert.equal(template.Outputs.VpcOwnSecurityGroup.Value, "false");
  });

  test("outputs read back: a created group is created again, a given one passed again", () => {
    const common = { VpcFunctionName: vpcFunctionName, VpcId: vpcId, VpcSubnetIds: `${subnetA},${subnetB}` };
    assert.deepEqual(
      vpcVariantFromOutputs({
        ...common,
        VpcSecurityGroupId: "sg-0stack000000000000",
        VpcOwnSecurityGroup: "true",
      }),
      { vpcId, subnetIds: [subnetA, subnetB], securityGroupId: null },
    );
    assert.deepEqual(
      vpcVariantFromOutputs({ ...common, VpcSecurityGroupId: userGroup, VpcOwnSecurityGroup: "false" }),
      { vpcId, subnetIds: [subnetA, subnetB], securityGroupId: userGroup },
    );
    assert.equal(vpcVariantFromOutputs({ BucketName: "b" }), null);
  });
});

describe("deployStack with the VPC variant (real CloudFormation/EC2/S3 clients, stubbed transport)", () => {
  const bucket = "lambda-netbench-bucket-1a2b3c";
  const current = {
    BucketName: bucket,
    FunctionName: "lambda-netbench-agent",
    AgentCodeKey: "agent/abc.zip",
  };
  const updated = (outputs: Record<string, string>) =>
    new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", current),
        describeStacks("UPDATE_IN_PROGRESS", current),
        describeStacks("UPDATE_COMPLETE", outputs),
      )
      .on("HeadObject", { statusCode: 200, headers: { "content-length": "12" }, body: "" })
      .on("UpdateStack", queryXml("UpdateStack", `<StackId>${stackId}</StackId>`));
  const templateOf = (stub: AwsStub) =>
    JSON.parse(String(stub.requests.find((r) => r.operation === "UpdateStack")?.input.TemplateBody));

  test("--vpc-subnets on an existing stack: subnets looked up first, the VPC function added beside the agent", async () => {
    const stub = updated({
      ...current,
      VpcFunctionName: vpcFunctionName,
      VpcId: vpcId,
      VpcSubnetIds: subnetA,
    }).on("DescribeSubnets", subnets([{ subnetId: subnetA, vpcId }]));
    const result = await deployStack(stubbedClients(stub), {
      ...stubDeployOptions,
      vpc: { subnetIds: [subnetA], securityGroupId: null },
    });
    const operations = stub.operations();
    assert.ok(operations.indexOf("DescribeSubnets") < operations.indexOf("UpdateStack"), operations.join());
    const template = templateOf(stub);
    assert.deepEqual(template.Resources.AgentVpcFunction.Properties.VpcConfig.SubnetIds, [subnetA]);
    assert.equal(template.Resources.AgentVpcSecurityGroup.Properties.VpcId, vpcId);
    assert.deepEqual(validateTemplate(template), []);
    assert.equal(result.vpc?.functionName, vpcFunctionName);
    assert.equal(result.vpc?.vpcId, vpcId);
  });

  test("a subnet EC2 does not know: the error names --vpc-subnets and nothing is changed", async () => {
    const stub = updated(current).on(
      "DescribeSubnets",
      ec2Error("InvalidSubnetID.NotFound", `The subnet ID '${subnetA}' does not exist`),
    );
    await assert.rejects(
      deployStack(stubbedClients(stub), {
        ...stubDeployOptions,
        vpc: { subnetIds: [subnetA], securityGroupId: null },
      }),
      inputError("vpc-subnets", /does not exist/),
    );
    assert.deepEqual(stub.operations(), ["DescribeStacks", "DescribeSubnets"]);
  });

  test("a plain deploy keeps the VPC function (no EC2 call); --remove-vpc drops it", async () => {
    const withVpc = {
      ...current,
      VpcFunctionName: vpcFunctionName,
      VpcId: vpcId,
      VpcSubnetIds: `${subnetA},${subnetB}`,
      VpcSecurityGroupId: userGroup,
      VpcOwnSecurityGroup: "false",
    };
    const keep = new AwsStub()
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", withVpc))
      .on("HeadObject", { statusCode: 200, headers: { "content-length": "12" }, body: "" })
      .on("UpdateStack", queryXml("UpdateStack", `<StackId>${stackId}</StackId>`));
    const lines: string[] = [];
    await deployStack(stubbedClients(keep), { ...stubDeployOptions, log: (line) => lines.push(line) });
    assert.ok(!keep.operations().some((op) => op.startsWith("Describe") && op !== "DescribeStacks"));
    const kept = templateOf(keep).Resources.AgentVpcFunction.Properties.VpcConfig;
    assert.deepEqual(kept, { SubnetIds: [subnetA, subnetB], SecurityGroupIds: [userGroup] });
    assert.match(lines.join("\n"), /keeping the VPC function .*--remove-vpc drops it/);
    const remove = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", withVpc),
        describeStacks("UPDATE_COMPLETE", current),
      )
      .on("HeadObject", { statusCode: 200, headers: { "content-length": "12" }, body: "" })
      .on("UpdateStack", queryXml("UpdateStack", `<StackId>${stackId}</StackId>`));
    const result = await deployStack(stubbedClients(remove), { ...stubDeployOptions, vpc: null });
    assert.equal(templateOf(remove).Resources.AgentVpcFunction, undefined);
    assert.equal(result.vpc, null);
  });
});

describe("deploy --vpc-only: the VPC function alone (accounts that require Lambda in a VPC)", () => {
  const vpc = { vpcId, subnetIds: [subnetA, subnetB], securityGroupId: null };

  test("the template holds no function outside a VPC; FunctionName is the VPC function; valid", () => {
    for (const options of [
      { ...base, vpc, vpcOnly: true },
      { ...withServer, vpc, vpcOnly: true },
    ] as StackTemplateOptions[]) {
      const template = buildStackTemplate(options);
      assert.deepEqual(validateTemplate(template), []);
      const functions = Object.entries(template.Resources).filter(
        ([, r]) => r.Type === "AWS::Lambda::Function",
      );
      assert.deepEqual(
        functions.map(([id]) => id),
        ["AgentVpcFunction"],
      );
      assert.equal((functions[0]?.[1].Properties as any)?.VpcConfig?.SecurityGroupIds?.length, 1);
      assert.equal(template.Resources.AgentRole, undefined);
      assert.deepEqual(template.Outputs.FunctionName?.Value, { Ref: "AgentVpcFunction" });
      assert.equal(template.Outputs.VpcOnly?.Value, "true");
    }
    assert.throws(() => buildStackTemplate({ ...base, vpcOnly: true }), /vpcOnly needs the VPC function/);
  });

  test("deployStack: refused before any change without the VPC function; kept by a plain deploy", async () => {
    const current = {
      BucketName: "lambda-netbench-bucket-1a2b3c",
      FunctionName: "lambda-netbench-agent",
      AgentCodeKey: "agent/abc.zip",
    };
    const bare = new AwsStub().on("DescribeStacks", describeStacks("UPDATE_COMPLETE", current));
    await assert.rejects(
      deployStack(stubbedClients(bare), { ...stubDeployOptions, vpcOnly: true }),
      inputError("vpc-only", /needs the VPC function: pass --vpc-subnets/),
    );
    assert.deepEqual(bare.operations(), ["DescribeStacks"]);
    const vpcOnlyStack = {
      ...current,
      FunctionName: vpcFunctionName,
      VpcOnly: "true",
      VpcFunctionName: vpcFunctionName,
      VpcId: vpcId,
      VpcSubnetIds: `${subnetA},${subnetB}`,
      VpcOwnSecurityGroup: "true",
    };
    const keep = new AwsStub()
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", vpcOnlyStack))
      .on("HeadObject", { statusCode: 200, headers: { "content-length": "12" }, body: "" })
      .on("UpdateStack", queryXml("UpdateStack", `<StackId>${stackId}</StackId>`));
    const lines: string[] = [];
    const result = await deployStack(stubbedClients(keep), {
      ...stubDeployOptions,
      log: (line) => lines.push(line),
    });
    const template = JSON.parse(
      String(keep.requests.find((r) => r.operation === "UpdateStack")?.input.TemplateBody),
    );
    assert.equal(
      template.Resources.AgentFunction,
      undefined,
      "a plain deploy adds no function outside a VPC",
    );
    assert.ok(template.Resources.AgentVpcFunction);
    assert.equal(result.vpcOnly, true);
    assert.match(lines.join("\n"), /keeping the stack VPC-only/);
  });

  test("a run's cells outside a VPC are refused on a VPC-only stack, before any change", () => {
    const outputs = { VpcOnly: "true", VpcFunctionName: vpcFunctionName, FunctionName: vpcFunctionName };
    const plain = { memoryMb: 1024, arch: "arm64" as const };
    assert.match(
      vpcVariantProblem([plain, { ...plain, vpc: true }], outputs, "eu-west-1") ?? "",
      /deployed with --vpc-only .* set the plan's `vpc: \[true\]`/,
    );
    assert.equal(vpcVariantProblem([{ ...plain, vpc: true }], outputs, "eu-west-1"), null);
  });
});

describe("the operator policy covers the VPC function", () => {
  test("its resource types, the VPC reads, the -vpc function and log group", async () => {
    const { operatorPolicy, stackResourceActions } = await import(
      "../../../src/platforms/aws/operator-policy.js"
    );
    const template = buildStackTemplate({
      ...withServer,
      vpc: { vpcId, subnetIds: [subnetA], securityGroupId: null },
    });
    for (const resource of Object.values(template.Resources))
      assert.ok(stackResourceActions[resource.Type], resource.Type);
    const policy = operatorPolicy();
    const granted = new Set(policy.Statement.flatMap((s) => s.Action));
    for (const action of [
      "ec2:DescribeSubnets",
      "ec2:DescribeRouteTables",
      "ec2:DescribeSecurityGroups",
      "ec2:DescribeVpcEndpoints",
      "ec2:DescribeVpcs",
      "ec2:DescribeNetworkInterfaces",
      "lambda:GetFunctionConfiguration",
    ])
      assert.ok(granted.has(action), action);
    const resources = JSON.stringify(policy.Statement.map((s) => s.Resource));
    assert.ok(resources.includes(`function:${vpcFunctionName}:*`), resources);
    assert.ok(resources.includes("log-group:/aws/lambda/lambda-netbench-agent-vpc"), resources);
  });
});

describe("the deploy command's VPC flags (buildProgram, stubbed transport)", () => {
  for (const [argv, field] of [
    [["--vpc-subnets", "subnet-nothex"], "vpc-subnets"],
    [["--vpc-subnets", ","], "vpc-subnets"],
    [["--vpc-security-group", userGroup], "vpc-security-group"],
    [["--vpc-subnets", subnetA, "--vpc-security-group", "sg-1"], "vpc-security-group"],
    [["--remove-vpc", "--vpc-subnets", subnetA], "remove-vpc"],
  ] as const) {
    test(`deploy ${argv.join(" ")} -> error naming ${field}, zero requests`, async () => {
      const stub = new AwsStub();
      await assert.rejects(stubbedCli(stub)("deploy", "--region", "us-west-2", ...argv), (error: unknown) => {
        assert.ok(error instanceof AwsInputError, String(error));
        assert.equal(error.field, field);
        return true;
      });
      assert.equal(stub.requests.length, 0);
    });
  }

  test("deploy --print-template --vpc-subnets: the VPC function in the template, no AWS call", async () => {
    const { existsSync } = await import("node:fs");
    if (!existsSync(new URL("../../../dist/agent/index.mjs", import.meta.url))) return; // needs `npm run build`
    const stub = new AwsStub();
    const lines: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => lines.push(args.join(" "));
    try {
      await stubbedCli(stub)(
        "deploy",
        "--region",
        "us-west-2",
        "--print-template",
        "--vpc-subnets",
        `${subnetA},${subnetB}`,
      );
    } finally {
      console.log = original;
    }
    const template = JSON.parse(lines.join("\n"));
    assert.deepEqual(template.Resources.AgentVpcFunction.Properties.VpcConfig.SubnetIds, [subnetA, subnetB]);
    assert.ok(template.Resources.AgentVpcSecurityGroup);
    assert.equal(stub.requests.length, 0);
  });
});

describe("schedule create with a VPC plan", () => {
  test("refused before any AWS call: scheduled runs have no VPC variant", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { createCommand } = await import("../../../src/cli/commands/schedule.js");
    const dir = mkdtempSync(join(tmpdir(), "lnb-vpc-schedule-"));
    const planPath = join(dir, "plan.yaml");
    writeFileSync(
      planPath,
      "name: vpc\ntargets: [{ platform: aws, region: us-west-2 }]\nmemoryMb: [2048]\nvpc: [false, true]\nprobes: [{ kind: info }]\n",
    );
    await assert.rejects(
      createCommand(
        {
          region: "us-west-2",
          config: planPath,
          every: "rate(1 day)",
          timezone: "UTC",
        } as never,
        {},
      ),
      /vpc: scheduled runs have no VPC variant/,
    );
  });
});
