// biome-ignore-all lint/suspicious/noExplicitAny: asserts on the template as plain JSON
// biome-ignore-all lint/style/noNonNullAssertion: a missing resource fails the assertion either way
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub placeholders
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { s3PutKeyPrefix, tagKey } from "../../../src/platforms/aws/naming.js";
import {
  buildStackTemplate,
  instanceArchitecture,
  type StackTemplateOptions,
} from "../../../src/platforms/aws/stack-template.js";
import { validateTemplate } from "./cfn-schema-validator.js";

const full: StackTemplateOptions = {
  agentCodeKey: "agent/abc.zip",
  arch: "arm64",
  memoryMb: 2048,
  timeoutSeconds: 900,
  server: {
    instanceType: "c8gn.large",
    ports: 4,
    generation: 2,
    expiresAt: "2026-11-30T00:00:00.000Z",
    idleTimeoutSeconds: 30,
    imageId: "ami-0123456789abcdef0",
    vpcId: "vpc-0123456789abcdef0",
    subnetId: "subnet-0123456789abcdef0",
  },
};

describe("stack template against AWS's CloudFormation resource schemas (@aws-cdk/aws-service-spec)", () => {
  for (const [name, options] of [
    ["bucket only (first pass)", { ...full, agentCodeKey: null, server: null }],
    ["function, no server", { ...full, server: null }],
    ["function and iperf3 server", full],
    [
      "x86_64 server type",
      { ...full, arch: "x86_64", server: { ...full.server!, instanceType: "c7i.large" } },
    ],
  ] as const) {
    test(`${name}: every resource type and property valid`, () => {
      const template = buildStackTemplate(options as StackTemplateOptions);
      assert.deepEqual(validateTemplate(template), []);
    });
  }

  test("the validator rejects what CloudFormation would (it can fail)", () => {
    const template = buildStackTemplate(full) as any;
    template.Resources.AgentFunction.Properties.MemorySizeMb = 1;
    template.Resources.AgentFunction.Properties.Timeout = "900";
    delete template.Resources.AgentRole.Properties.AssumeRolePolicyDocument;
    template.Resources.AgentLogGroup.Properties.RetentionInDays = 8;
    template.Resources.Bucket.Properties.PublicAccessBlockConfiguration.BlockPublicAcls = "yes";
    template.Outputs.BucketName.Value = { "Fn::GetAtt": ["Bucket", "NoSuchAttribute"] };
    template.Resources.Extra = { Type: "AWS::Lambda::Functionn", Properties: {} };
    template.Resources.AgentFunction.Properties.Role = { "Fn::GetAtt": ["MissingRole", "Arn"] };
    const errors = validateTemplate(template).join("\n");
    for (const expected of [
      "AgentFunction.Properties: unknown property MemorySizeMb",
      "AgentFunction.Properties.Timeout: expected integer",
      "AgentRole.Properties: required property AssumeRolePolicyDocument missing",
      "RetentionInDays: 8 not in",
      "BlockPublicAcls: expected boolean",
      "has no attribute NoSuchAttribute",
      "unknown resource type AWS::Lambda::Functionn",
      "unknown resource or parameter MissingRole",
    ])
      assert.ok(errors.includes(expected), `missing error "${expected}" in:\n${errors}`);
  });

  test("pure: same input, same template; input not modified", () => {
    const input = structuredClone(full);
    assert.deepEqual(buildStackTemplate(input), buildStackTemplate(input));
    assert.deepEqual(input, full);
  });

  test("what the product requires of the resources", () => {
    const template = buildStackTemplate(full);
    const r = template.Resources as Record<string, { Type: string; Properties: any }>;
    // function: nodejs22.x, zip from the bucket, no VPC
    const fn = r.AgentFunction!.Properties;
    assert.equal(fn.Runtime, "nodejs22.x");
    assert.equal(fn.Handler, "index.handler");
    assert.deepEqual(fn.Code, { S3Bucket: { Ref: "Bucket" }, S3Key: "agent/abc.zip" });
    assert.equal(fn.VpcConfig, undefined);
    assert.deepEqual(fn.Architectures, ["arm64"]);
    // least privilege: object actions on the test-object prefix of this bucket, its own log group
    const statements = r.AgentRole!.Properties.Policies[0].PolicyDocument.Statement;
    assert.deepEqual(statements[0].Action, ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"]);
    assert.deepEqual(statements[0].Resource, { "Fn::Sub": "${Bucket.Arn}/test-objects/*" });
    assert.deepEqual(statements[1].Resource, { "Fn::Sub": "${AgentLogGroup.Arn}" });
    assert.equal(r.AgentRole!.Properties.ManagedPolicyArns, undefined);
    // bucket: public access blocked, encrypted, test objects expire
    const bucket = r.Bucket!.Properties;
    assert.ok(Object.values(bucket.PublicAccessBlockConfiguration).every((v) => v === true));
    assert.equal(
      bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
      "AES256",
    );
    assert.equal(bucket.LifecycleConfiguration.Rules[0].Prefix, "test-objects/");
    assert.ok(bucket.LifecycleConfiguration.Rules[0].ExpirationInDays > 0);
    // server: only the iperf3 ports, no SSH, no key pair, terminates itself, RSA auth
    const sg = r.ServerSecurityGroup!.Properties.SecurityGroupIngress;
    assert.equal(sg.length, 1);
    assert.deepEqual([sg[0].IpProtocol, sg[0].FromPort, sg[0].ToPort], ["tcp", 5201, 5204]);
    const instance = r.Iperf3Server2!.Properties;
    assert.equal(instance.KeyName, undefined);
    assert.equal(instance.InstanceInitiatedShutdownBehavior, "terminate");
    assert.equal(instance.InstanceType, "c8gn.large");
    // breaker 8: the AMI is a pinned literal, not an SSM parameter re-resolved on every update
    assert.equal(instance.ImageId, "ami-0123456789abcdef0");
    assert.deepEqual(template.Parameters, {});
    // breaker 2: in the given VPC and subnet, with a public address (no default VPC needed)
    assert.equal(r.ServerSecurityGroup!.Properties.VpcId, "vpc-0123456789abcdef0");
    assert.equal(instance.NetworkInterfaces[0].SubnetId, "subnet-0123456789abcdef0");
    assert.equal(instance.NetworkInterfaces[0].AssociatePublicIpAddress, true);
    assert.equal(instance.SecurityGroupIds, undefined, "groups go on the interface when it is given");
    // breaker 1/8: TTL, ports and idle timeout are instance tags the watchdog reads (IMDS tags on)
    const tagOf = (key: string) => instance.Tags.find((t: { Key: string }) => t.Key === key)?.Value;
    assert.equal(tagOf("lambda-netbench-expires-at"), "2026-11-30T00:00:00.000Z");
    assert.equal(tagOf("lambda-netbench-ports"), "5201-5204");
    assert.equal(tagOf("lambda-netbench-idle-timeout-seconds"), "30");
    assert.equal(instance.MetadataOptions.InstanceMetadataTags, "enabled");
    assert.equal(instance.MetadataOptions.HttpTokens, "required");
    const userData: string = instance.UserData["Fn::Base64"]["Fn::Sub"];
    assert.ok(
      userData.indexOf("lambda-netbench-watchdog.timer") < userData.indexOf("dnf install"),
      "TTL armed before anything can fail",
    );
    assert.match(userData, /retry dnf install -y iperf3/);
    assert.match(userData, /PASSWORD=\$\(retry fetch /);
    assert.match(userData, /--idle-timeout \$IDLE_TIMEOUT --rsa-private-key-path/);
    assert.doesNotMatch(userData, /set -e/, "a failed step is retried or reported, not a silent abort");
    // breaker 9: no AmazonSSMManagedInstanceCore; Session Manager scoped; only its own parameters
    const role = r.ServerRole!.Properties;
    assert.equal(role.ManagedPolicyArns, undefined);
    const serverStatements = role.Policies[0].PolicyDocument.Statement as {
      Sid: string;
      Action: string | string[];
      Resource: any;
    }[];
    const actions = serverStatements.flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
    assert.ok(!actions.includes("ssm:GetParameters"));
    assert.ok(!actions.some((a) => a.endsWith(":*") || a === "*"));
    for (const needed of [
      "ssm:UpdateInstanceInformation",
      "ssmmessages:OpenDataChannel",
      "ec2messages:GetMessages",
    ])
      assert.ok(actions.includes(needed), needed);
    const readSecrets = serverStatements.find((st) => st.Sid === "ReadOwnSecrets")!;
    assert.equal(readSecrets.Action, "ssm:GetParameter");
    assert.equal(JSON.stringify(readSecrets.Resource).includes("parameter/lambda-netbench/iperf3/"), true);
    assert.ok(!JSON.stringify(readSecrets.Resource).includes("*"));
    // every taggable resource carries the tag; the launch template (which the stack's tags do not
    // reach) through its TagSpecifications, as it is created
    const tagSpecification = (specifications: any[], type: string) =>
      specifications.find((spec: { ResourceType: string }) => spec.ResourceType === type)?.Tags ?? [];
    const hasOurTag = (tags: { Key: string }[] | undefined) => tags?.some((t) => t.Key === tagKey) === true;
    for (const [id, resource] of Object.entries(r))
      if (resource.Type === "AWS::EC2::LaunchTemplate")
        assert.ok(hasOurTag(tagSpecification(resource.Properties.TagSpecifications, "launch-template")), id);
      else if (!["AWS::S3::BucketPolicy", "AWS::IAM::InstanceProfile"].includes(resource.Type))
        assert.ok(hasOurTag(resource.Properties.Tags), `${id} is tagged`);
    // the network interface EC2 creates with the instance: tagged at creation by its launch template,
    // the one of its generation, at the version that generation created
    const launchTemplate = r.Iperf3ServerLaunchTemplate2!.Properties;
    assert.ok(
      hasOurTag(tagSpecification(launchTemplate.LaunchTemplateData.TagSpecifications, "network-interface")),
    );
    assert.deepEqual(Object.keys(launchTemplate.LaunchTemplateData), ["TagSpecifications"], "nothing else");
    assert.deepEqual(instance.LaunchTemplate, {
      LaunchTemplateId: { Ref: "Iperf3ServerLaunchTemplate2" },
      Version: "1",
    });
  });

  test("user data is valid bash once CloudFormation substitutes it", () => {
    const template = buildStackTemplate(full) as any;
    const script = (
      template.Resources.Iperf3Server2.Properties.UserData["Fn::Base64"]["Fn::Sub"] as string
    ).replaceAll("${AWS::Region}", "us-west-2");
    const start = script.indexOf("<<'WATCHDOG'\n") + "<<'WATCHDOG'\n".length;
    const watchdog = script.slice(start, script.indexOf("\nWATCHDOG\n"));
    const watchdogCheck = spawnSync("bash", ["-n"], { input: watchdog });
    assert.equal(watchdogCheck.status, 0, watchdogCheck.stderr.toString());
    assert.ok(
      !/\$\{(?!AWS::)/.test(template.Resources.Iperf3Server2.Properties.UserData["Fn::Base64"]["Fn::Sub"]),
      "only ${AWS::...} placeholders: bash variables must not look like Fn::Sub references",
    );
    const check = spawnSync("bash", ["-n"], { input: script });
    assert.equal(check.status, 0, check.stderr.toString());
  });

  test("breaker 8: changing TTL, ports or idle timeout leaves UserData (and the instance) alone", () => {
    const a = buildStackTemplate(full) as any;
    const b = buildStackTemplate({
      ...full,
      server: { ...full.server!, ports: 2, idleTimeoutSeconds: 60, expiresAt: "2026-12-01T00:00:00.000Z" },
    }) as any;
    assert.deepEqual(
      a.Resources.Iperf3Server2.Properties.UserData,
      b.Resources.Iperf3Server2.Properties.UserData,
    );
    assert.equal(a.Resources.Iperf3Server2.Properties.ImageId, b.Resources.Iperf3Server2.Properties.ImageId);
    assert.notDeepEqual(a.Resources.Iperf3Server2.Properties.Tags, b.Resources.Iperf3Server2.Properties.Tags);
  });

  test("breaker 7: the agent role and the lifecycle rule cover where s3-put writes", () => {
    const template = buildStackTemplate(full) as any;
    const grant =
      template.Resources.AgentRole.Properties.Policies[0].PolicyDocument.Statement[0].Resource["Fn::Sub"];
    const prefix = grant.replace("${Bucket.Arn}/", "").replace(/\*$/, "");
    assert.ok(s3PutKeyPrefix.startsWith(prefix), `${s3PutKeyPrefix} is under ${prefix}`);
    assert.ok(
      s3PutKeyPrefix.startsWith(template.Resources.Bucket.Properties.LifecycleConfiguration.Rules[0].Prefix),
    );
  });

  test("instance architecture from the type", () => {
    assert.equal(instanceArchitecture("c8gn.large"), "arm64");
    assert.equal(instanceArchitecture("m7g.xlarge"), "arm64");
    assert.equal(instanceArchitecture("t4g.micro"), "arm64");
    assert.equal(instanceArchitecture("c7i.large"), "x86_64");
    assert.equal(instanceArchitecture("g5.xlarge"), "x86_64");
  });
});
