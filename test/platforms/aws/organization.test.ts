// biome-ignore-all lint/suspicious/noExplicitAny: walks untyped CloudFormation templates
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deployStack } from "../../../src/platforms/aws/deploy.js";
import {
  checkMetadataTagKeys,
  parseTags,
  validatePolicyArn,
  validateRoleArn,
} from "../../../src/platforms/aws/organization.js";
import {
  AwsStub,
  defaultVpcResponses,
  describeStacks,
  json,
  jsonError,
  queryXml,
  stackDoesNotExist,
  stackId,
  stubbedClients,
  stubDeployOptions,
} from "./aws-stub.js";
import { validateTemplate } from "./cfn-schema-validator.js";

/** An organization account: a boundary on every role, a CloudFormation service role, mandatory tags. */

const bucket = "lambda-netbench-bucket-1a2b3c";
const boundary = "arn:aws:iam::123456789012:policy/OrgBoundary";
const serviceRole = "arn:aws:iam::123456789012:role/OrgCloudFormation";
const ok = (action: string) => queryXml(action, `<StackId>${stackId}</StackId>`);

const roles = (template: any) =>
  Object.entries<any>(template.Resources).filter(([, resource]) => resource.Type === "AWS::IAM::Role");

describe("organization accounts: deploy --permissions-boundary, --role-arn, --tags", () => {
  test("every role gets the boundary, the stack its service role and the tags (which CloudFormation puts on every resource)", async () => {
    const status = JSON.stringify({
      version: "3.19.1",
      padding: "oaep",
      ports: "5201-5201",
      instanceId: "i-0123456789abcdef0",
    });
    const stub = defaultVpcResponses(new AwsStub())
      .on(
        "DescribeStacks",
        stackDoesNotExist,
        describeStacks("CREATE_COMPLETE", { BucketName: bucket }),
        describeStacks("UPDATE_COMPLETE", {
          BucketName: bucket,
          FunctionName: "lambda-netbench-agent",
          AgentCodeKey: "agent/abc.zip",
          ServerPorts: "5201-5201",
          ServerInstanceId: "i-0123456789abcdef0",
          PermissionsBoundaryArn: boundary,
        }),
      )
      .on("GetParameter", (request) => {
        const name = String(request.input.Name);
        if (name.startsWith("/aws/service/"))
          return json({ Parameter: { Name: name, Type: "String", Value: "ami-0fedcba9876543210" } });
        if (name.endsWith("server-status"))
          return json({ Parameter: { Name: name, Type: "String", Value: status } });
        return jsonError("ParameterNotFound", "");
      })
      .on("PutParameter", json({ Version: 1, Tier: "Standard" }))
      .on("AddTagsToResource", json({}))
      .on("DeleteParameter", jsonError("ParameterNotFound", ""))
      .on("CreateStack", ok("CreateStack"))
      .on("HeadObject", { statusCode: 404, headers: {}, body: "" })
      .on("PutObject", { statusCode: 200, headers: { etag: '"e"' }, body: "" })
      .on("UpdateStack", ok("UpdateStack"));
    await deployStack(stubbedClients(stub), {
      ...stubDeployOptions,
      server: { instanceType: "c8gn.large", ttlHours: 3, ports: 1, idleTimeoutSeconds: 30 },
      organization: {
        permissionsBoundaryArn: boundary,
        serviceRoleArn: serviceRole,
        tags: [
          { Key: "CostCenter", Value: "net-42" },
          { Key: "Owner", Value: "alice" },
        ],
      },
    });
    const create = stub.requests.find((r) => r.operation === "CreateStack")?.input ?? {};
    // the function's update, then the server's: both through the role, both with the tags
    const updates = stub.requests.filter((r) => r.operation === "UpdateStack").map((r) => r.input);
    assert.equal(updates.length, 2);
    const update = updates.at(-1) ?? {};
    for (const call of [create, ...updates]) {
      assert.equal(call.RoleARN, serviceRole, "CloudFormation acts through the service role");
      assert.deepEqual(
        [1, 2, 3].map((n) => [call[`Tags.member.${n}.Key`], call[`Tags.member.${n}.Value`]]),
        [
          ["lambda-netbench", "managed"],
          ["CostCenter", "net-42"],
          ["Owner", "alice"],
        ],
      );
    }
    // the secrets are made outside CloudFormation: they are created with the same tags
    const puts = stub.requests.filter((r) => r.operation === "PutParameter");
    assert.equal(puts.length, 2);
    for (const put of puts)
      assert.deepEqual(
        (put.input.Tags as Array<{ Key: string }>).map((tag) => tag.Key),
        ["lambda-netbench", "CostCenter", "Owner"],
      );
    assert.deepEqual(
      stub.requests.filter((r) => r.operation === "AddTagsToResource"),
      [],
      "not tagged afterwards",
    );
    const template = JSON.parse(String(update.TemplateBody));
    // the instance carries them itself, so its root volume gets them at creation
    const instance = template.Resources.Iperf3Server1.Properties;
    assert.deepEqual(instance.Tags.map((tag: { Key: string }) => tag.Key).slice(0, 3), [
      "lambda-netbench",
      "CostCenter",
      "Owner",
    ]);
    assert.equal(instance.PropagateTagsToVolumeOnCreation, true);
    // its network interface through its launch template (which the stack's tags do not reach either)
    const launchTemplate = template.Resources.Iperf3ServerLaunchTemplate1.Properties;
    for (const [specifications, type] of [
      [launchTemplate.LaunchTemplateData.TagSpecifications, "network-interface"],
      [launchTemplate.TagSpecifications, "launch-template"],
    ])
      assert.deepEqual(
        specifications
          .find((spec: { ResourceType: string }) => spec.ResourceType === type)
          .Tags.map((tag: { Key: string }) => tag.Key)
          .slice(0, 3),
        ["lambda-netbench", "CostCenter", "Owner"],
        type,
      );
    const found = roles(template);
    assert.deepEqual(found.map(([id]) => id).sort(), ["AgentRole", "ServerRole"]);
    for (const [id, role] of found) assert.equal(role.Properties.PermissionsBoundary, boundary, id);
    assert.equal(template.Outputs.PermissionsBoundaryArn.Value, boundary, "schedules read it here");
    assert.deepEqual(validateTemplate(template), [], "PermissionsBoundary is a property AWS::IAM::Role has");
  });

  test("a later deploy without the flags keeps the boundary, the role and the tags the stack has", async () => {
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", {
          BucketName: bucket,
          FunctionName: "lambda-netbench-agent",
          AgentCodeKey: "agent/abc.zip",
          PermissionsBoundaryArn: boundary,
        }),
      )
      .on("HeadObject", { statusCode: 200, headers: {}, body: "" })
      .on("UpdateStack", ok("UpdateStack"));
    await deployStack(stubbedClients(stub), stubDeployOptions);
    const update = stub.requests.find((r) => r.operation === "UpdateStack")?.input ?? {};
    assert.equal(update.RoleARN, undefined, "CloudFormation keeps the stack's service role");
    assert.equal(update["Tags.member.1.Key"], undefined, "and its tags");
    const template = JSON.parse(String(update.TemplateBody));
    for (const [id, role] of roles(template)) assert.equal(role.Properties.PermissionsBoundary, boundary, id);
  });

  test("the flags are checked before any call: ARNs of the right kind, tags as KEY=VALUE", () => {
    assert.equal(validatePolicyArn(boundary, "permissions-boundary"), boundary);
    assert.throws(
      () => validatePolicyArn(serviceRole, "permissions-boundary"),
      /permissions-boundary: .* is not an IAM policy ARN/,
    );
    assert.throws(() => validateRoleArn(boundary, "role-arn"), /role-arn: .* is not an IAM role ARN/);
    assert.deepEqual(parseTags("CostCenter=net-42, Owner=alice"), [
      { Key: "CostCenter", Value: "net-42" },
      { Key: "Owner", Value: "alice" },
    ]);
    assert.throws(() => parseTags("CostCenter"), /tags: "CostCenter" is not KEY=VALUE/);
    assert.throws(() => parseTags("aws:x=1"), /aws: prefix/);
    assert.throws(() => parseTags("lambda-netbench=x"), /the tool's own tag/);
    assert.throws(() => parseTags("A=1,A=2"), /given twice/);
  });

  test("with the server, tag keys that instance metadata cannot hold are refused before any call", () => {
    // valid stack tags, but EC2 refuses to launch an instance with metadata tags and these keys
    for (const key of ["Cost Center", "team/owner", "..", "_index"])
      assert.throws(
        () => checkMetadataTagKeys(parseTags(`${key}=x`)),
        new RegExp(
          `tags: "${key.replace(/[.]/g, "\\.")}": the iperf3 server's tags are readable from its instance metadata.*no space, no /`,
        ),
      );
    assert.doesNotThrow(() =>
      checkMetadataTagKeys(parseTags("CostCenter=net 42,team:owner=a/b,x.y-z_1@c=1")),
    );
  });
});
