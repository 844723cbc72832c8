import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  type DeployOptions,
  deployStack,
  planServer,
  ServerNotReadyError,
} from "../../../src/platforms/aws/deploy.js";
import { resolveServerNetwork } from "../../../src/platforms/aws/server-network.js";
import { StackOperationFailed } from "../../../src/platforms/aws/stack-state.js";
import {
  AwsStub,
  callerIdentity,
  defaultVpcResponses,
  describeStacks,
  ec2Xml,
  json,
  jsonError,
  queryError,
  queryXml,
  stackDoesNotExist,
  stackId,
  stubbedClients,
  stubDeployOptions,
} from "./aws-stub.js";

const bucket = "lambda-netbench-bucket-1a2b3c";
const fullOutputs = {
  BucketName: bucket,
  FunctionName: "lambda-netbench-agent",
  AgentCodeKey: "agent/abc.zip",
};
const options: DeployOptions = { ...stubDeployOptions, now: () => new Date("2026-11-29T20:00:00Z") };
const ok = (action: string) => queryXml(action, `<StackId>${stackId}</StackId>`);
const notFound = { statusCode: 404, headers: {}, body: "" };
const putOk = { statusCode: 200, headers: { etag: '"9b2cf535f27731c974343645a3985328"' }, body: "" };
const parameterNotFound = jsonError("ParameterNotFound", "");

describe("deploy on the real CloudFormation/S3/SSM clients (stubbed transport)", () => {
  test("create: bucket first, agent zip uploaded, full template applied, server secrets in SSM", async () => {
    const status = JSON.stringify({
      version: "3.16",
      padding: "pkcs1",
      ports: "5201-5201",
      instanceId: "i-0123456789abcdef0",
    });
    let secretReads = 0;
    const stub = defaultVpcResponses(new AwsStub())
      .on(
        "DescribeStacks",
        stackDoesNotExist,
        describeStacks("CREATE_IN_PROGRESS"),
        describeStacks("CREATE_COMPLETE", { BucketName: bucket }),
        describeStacks("UPDATE_IN_PROGRESS", { BucketName: bucket }),
        describeStacks("UPDATE_COMPLETE", {
          ...fullOutputs,
          ServerPublicDnsName: "ec2-198-18-0-1.us-west-2.compute.amazonaws.com",
          ServerPorts: "5201-5201",
          ServerExpiresAt: "2026-11-29T23:00:00.000Z",
          ServerInstanceId: "i-0123456789abcdef0",
        }),
      )
      .on("GetParameter", (request) => {
        const name = String(request.input.Name);
        if (name.startsWith("/aws/service/"))
          return json({ Parameter: { Name: name, Type: "String", Value: "ami-0fedcba9876543210" } });
        if (name.endsWith("server-status"))
          return json({ Parameter: { Name: name, Type: "String", Value: status } });
        secretReads += 1;
        return parameterNotFound;
      })
      .on("PutParameter", json({ Version: 1, Tier: "Standard" }))
      .on("AddTagsToResource", json({}))
      .on("DeleteParameter", parameterNotFound)
      .on("CreateStack", ok("CreateStack"))
      .on("HeadObject", notFound)
      .on("PutObject", putOk)
      .on("UpdateStack", ok("UpdateStack"));
    const result = await deployStack(stubbedClients(stub), {
      ...options,
      server: { instanceType: "c8gn.large", ttlHours: 3, ports: 1, idleTimeoutSeconds: 30 },
    });
    assert.equal(secretReads, 2);
    assert.deepEqual(stub.operations(), [
      "DescribeStacks",
      "DescribeVpcs",
      "DescribeSubnets",
      "DescribeInstanceTypeOfferings",
      "DescribeRouteTables",
      "DescribeRouteTables",
      "GetParameter",
      // the server's vCPUs against EC2's quota (the stub knows no instance type: not checked)
      "DescribeInstanceTypes",
      "GetParameter",
      "GetParameter",
      // each secret created with its tags (no untagged moment, no tagging afterwards)
      "PutParameter",
      "PutParameter",
      "DeleteParameter",
      "CreateStack",
      "DescribeStacks",
      "DescribeStacks",
      "HeadObject",
      "PutObject",
      // the function first, then the new server in its own update
      "UpdateStack",
      "DescribeStacks",
      "DescribeStacks",
      "UpdateStack",
      "DescribeStacks",
      "GetParameter",
    ]);
    const find = (op: string) => stub.requests.filter((r) => r.operation === op);
    assert.deepEqual(
      find("PutParameter").map((r) => [r.input.Name, r.input.Type]),
      [
        ["/lambda-netbench/iperf3/private-key", "SecureString"],
        ["/lambda-netbench/iperf3/password", "SecureString"],
      ],
    );
    assert.match(String(find("PutParameter")[0]?.input.Value), /BEGIN PRIVATE KEY/);
    for (const put of find("PutParameter")) {
      assert.deepEqual(put.input.Tags, [{ Key: "lambda-netbench", Value: "managed" }]);
      assert.equal(put.input.Overwrite, undefined, "SSM takes Tags only on creation");
    }
    // the root volume tagged at creation; IMDS one hop away (the host itself asks it)
    const instance = JSON.parse(String(find("UpdateStack")[1]?.input.TemplateBody)).Resources.Iperf3Server1;
    assert.equal(instance.Properties.PropagateTagsToVolumeOnCreation, true);
    assert.equal(instance.Properties.MetadataOptions.HttpPutResponseHopLimit, 1);
    const create = find("CreateStack")[0]?.input ?? {};
    assert.equal(create["Capabilities.member.1"], "CAPABILITY_IAM");
    assert.equal(create["Tags.member.1.Key"], "lambda-netbench");
    const first = JSON.parse(String(create.TemplateBody));
    assert.equal(
      first.Resources.AgentFunction,
      undefined,
      "first pass: no function before its code is uploaded",
    );
    assert.ok(first.Resources.Bucket);
    assert.equal(find("PutObject")[0]?.path, "/agent/abc.zip");
    const functionFirst = JSON.parse(String(find("UpdateStack")[0]?.input.TemplateBody));
    assert.equal(functionFirst.Resources.AgentFunction.Properties.Code.S3Key, "agent/abc.zip");
    assert.equal(functionFirst.Resources.Iperf3Server1, undefined, "the function before the server");
    const second = JSON.parse(String(find("UpdateStack")[1]?.input.TemplateBody));
    assert.equal(second.Resources.AgentFunction.Properties.Code.S3Key, "agent/abc.zip");
    assert.ok(second.Resources.Iperf3Server1);
    // the AMI resolved once and pinned; the default VPC's public subnet
    assert.equal(second.Resources.Iperf3Server1.Properties.ImageId, "ami-0fedcba9876543210");
    assert.equal(second.Outputs.ServerImageId.Value, "ami-0fedcba9876543210");
    assert.equal(
      second.Resources.Iperf3Server1.Properties.NetworkInterfaces[0].SubnetId,
      "subnet-0a1b2c3d4e5f60718",
    );
    assert.equal(second.Resources.ServerSecurityGroup.Properties.VpcId, "vpc-0a1b2c3d4e5f60718");
    assert.equal(second.Outputs.ServerExpiresAt.Value, "2026-11-29T23:00:00.000Z");
    assert.equal(result.action, "created");
    assert.deepEqual(result.server, {
      host: "ec2-198-18-0-1.us-west-2.compute.amazonaws.com",
      ports: "5201-5201",
      expiresAt: "2026-11-29T23:00:00.000Z",
      padding: "pkcs1",
    });
    // the recorder never shows a secret
    assert.ok(!JSON.stringify(stubbedClients(stub).recorder.calls).includes("BEGIN PRIVATE KEY"));
  });

  test("re-run with nothing changed: in place, 'No updates are to be performed' is success", async () => {
    const stub = new AwsStub()
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", fullOutputs))
      .on("HeadObject", { statusCode: 200, headers: { "content-length": "12" }, body: "" })
      .on("UpdateStack", queryError("ValidationError", "No updates are to be performed."));
    const result = await deployStack(stubbedClients(stub), options);
    assert.deepEqual(stub.operations(), ["DescribeStacks", "HeadObject", "UpdateStack"]);
    assert.equal(result.action, "unchanged");
  });

  test("a stack left in ROLLBACK_COMPLETE is deleted, then created again", async () => {
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("ROLLBACK_COMPLETE"),
        describeStacks("DELETE_IN_PROGRESS"),
        stackDoesNotExist,
        describeStacks("CREATE_COMPLETE", { BucketName: bucket }),
        describeStacks("UPDATE_COMPLETE", fullOutputs),
      )
      .on("DeleteStack", queryXml("DeleteStack", ""))
      .on("CreateStack", ok("CreateStack"))
      .on("HeadObject", notFound)
      .on("PutObject", putOk)
      .on("UpdateStack", ok("UpdateStack"));
    const result = await deployStack(stubbedClients(stub), options);
    assert.deepEqual(stub.operations().slice(0, 5), [
      "DescribeStacks",
      "DeleteStack",
      "DescribeStacks",
      "DescribeStacks",
      "CreateStack",
    ]);
    assert.equal(result.action, "created");
  });

  test("a failed creation reports CloudFormation's reasons (ROLLBACK_COMPLETE)", async () => {
    const events = queryXml(
      "DescribeStackEvents",
      `<StackEvents>
        <member><StackId>${stackId}</StackId><EventId>e3</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>lambda-netbench</LogicalResourceId><ResourceType>AWS::CloudFormation::Stack</ResourceType><Timestamp>2026-11-29T20:02:00Z</Timestamp><ResourceStatus>ROLLBACK_COMPLETE</ResourceStatus></member>
        <member><StackId>${stackId}</StackId><EventId>e2</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>Bucket</LogicalResourceId><ResourceType>AWS::S3::Bucket</ResourceType><Timestamp>2026-11-29T20:01:00Z</Timestamp><ResourceStatus>CREATE_FAILED</ResourceStatus><ResourceStatusReason>Resource handler returned message: "Access Denied"</ResourceStatusReason></member>
        <member><StackId>${stackId}</StackId><EventId>e1</EventId><StackName>lambda-netbench</StackName><LogicalResourceId>lambda-netbench</LogicalResourceId><ResourceType>AWS::CloudFormation::Stack</ResourceType><Timestamp>2026-11-29T20:00:00Z</Timestamp><ResourceStatus>CREATE_IN_PROGRESS</ResourceStatus><ResourceStatusReason>User Initiated</ResourceStatusReason></member>
      </StackEvents>`,
    );
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        stackDoesNotExist,
        describeStacks("ROLLBACK_IN_PROGRESS"),
        describeStacks("ROLLBACK_COMPLETE"),
      )
      .on("CreateStack", ok("CreateStack"))
      .on("DescribeStackEvents", events);
    await assert.rejects(deployStack(stubbedClients(stub), options), (error: unknown) => {
      assert.ok(error instanceof StackOperationFailed);
      assert.equal(error.status, "ROLLBACK_COMPLETE");
      assert.deepEqual(error.reasons, ['Bucket: Resource handler returned message: "Access Denied"']);
      return true;
    });
  });

  test("--dry-run: reads are sent, every change is only listed", async () => {
    const stub = new AwsStub()
      .on("DescribeStacks", stackDoesNotExist)
      .on("GetCallerIdentity", callerIdentity())
      .on(
        "SimulatePrincipalPolicy",
        queryError("AccessDenied", "not authorized to perform: iam:SimulatePrincipalPolicy", 403),
      );
    const c = stubbedClients(stub, { dryRun: true });
    const result = await deployStack(c, { ...options, testObjectBytes: 1_073_741_824 });
    // the simulator's own permission is the operator's to grant: without it the check says so
    assert.deepEqual(stub.operations(), ["DescribeStacks", "GetCallerIdentity", "SimulatePrincipalPolicy"]);
    assert.match(
      result.dryRunFindings[0]?.detail ?? "",
      /could not simulate the operator policy \(AccessDenied/,
    );
    assert.equal(result.dryRunFindings[0]?.allowed, null);
    assert.deepEqual(
      c.recorder.calls.map((call) => `${call.sent ? "sent" : "held"} ${call.operation}`),
      [
        "sent DescribeStacks",
        "sent GetCallerIdentity",
        "sent SimulatePrincipalPolicy",
        "held CreateStack",
        "held PutObject",
        "held UpdateStack",
      ],
    );
    assert.ok(
      c.recorder
        .describe()
        .some((line) => line.startsWith("would call CloudFormation.CreateStack (us-west-2)")),
    );
    assert.equal(result.dryRun, true);
  });

  test("server generation: TTL extended in place; replaced when expired, or a new type, AMI or subnet", () => {
    const server = { instanceType: "c8gn.large", ttlHours: 3, imageId: "ami-1", subnetId: "subnet-1" };
    const now = new Date("2026-11-29T20:00:00Z");
    assert.deepEqual(planServer({}, server, now), {
      generation: 1,
      expiresAt: "2026-11-29T23:00:00.000Z",
      fresh: true,
    });
    const running = {
      ServerGeneration: "1",
      ServerExpiresAt: "2026-11-29T20:30:00.000Z",
      ServerInstanceType: "c8gn.large",
      ServerImageId: "ami-1",
      ServerSubnetId: "subnet-1",
    };
    // breaker 1: a deploy extends the running server's TTL (a tag) without replacing it
    assert.deepEqual(planServer(running, server, now), {
      generation: 1,
      expiresAt: "2026-11-29T23:00:00.000Z",
      fresh: false,
    });
    assert.equal(
      planServer({ ...running, ServerExpiresAt: "2026-11-29T20:02:00.000Z" }, server, now).generation,
      2,
    );
    assert.equal(planServer({ ...running, ServerImageId: "ami-0" }, server, now).generation, 2);
    assert.equal(planServer({ ...running, ServerSubnetId: "subnet-0" }, server, now).generation, 2);
    assert.equal(planServer({ ...running, ServerInstanceType: "c7gn.large" }, server, now).generation, 2);
  });

  const serverOutputs = {
    ...fullOutputs,
    ServerPorts: "5201-5201",
    ServerGeneration: "1",
    ServerExpiresAt: "2026-11-29T21:00:00.000Z",
    ServerInstanceType: "c8gn.large",
    ServerImageId: "ami-0pinned000000000",
    ServerImageArch: "arm64",
    ServerSubnetId: "subnet-0a1b2c3d4e5f60718",
    ServerVpcId: "vpc-0a1b2c3d4e5f60718",
    ServerInstanceId: "i-0new00000000000000",
  };
  const secretsPresent = (status: string | null) => (request: { input: Record<string, unknown> }) => {
    const name = String(request.input.Name);
    if (name.startsWith("/aws/service/"))
      return json({ Parameter: { Name: name, Type: "String", Value: "ami-0latest00000000" } });
    if (name.endsWith("server-status"))
      return status === null
        ? parameterNotFound
        : json({ Parameter: { Name: name, Type: "String", Value: status } });
    return json({ Parameter: { Name: name, Type: "SecureString", Value: "x" } });
  };

  test("breaker 8: the AMI stays pinned on update; --update-ami moves it (and replaces the server)", async () => {
    for (const updateAmi of [false, true]) {
      const status = JSON.stringify({
        version: "3.16",
        padding: "oaep",
        ports: "5201-5201",
        instanceId: "i-0new00000000000000",
      });
      const stub = new AwsStub()
        .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", serverOutputs))
        .on("GetParameter", secretsPresent(status))
        .on("DeleteParameter", json({}))
        .on("HeadObject", { statusCode: 200, headers: {}, body: "" })
        .on("UpdateStack", ok("UpdateStack"));
      await deployStack(stubbedClients(stub), {
        ...options,
        server: { instanceType: "c8gn.large", ttlHours: 3, ports: 1, idleTimeoutSeconds: 30, updateAmi },
      });
      // the last update: a replaced server comes in its own, after the function's
      const template = JSON.parse(
        String(stub.requests.filter((r) => r.operation === "UpdateStack").at(-1)?.input.TemplateBody),
      );
      const amiReads = stub.requests.filter((r) => String(r.input.Name).startsWith("/aws/service/")).length;
      assert.equal(stub.operations().includes("DescribeVpcs"), false, "the stack's subnet is kept");
      if (updateAmi) {
        assert.equal(amiReads, 1);
        assert.ok(template.Resources.Iperf3Server2, "replaced deliberately: a new generation");
        assert.equal(template.Resources.Iperf3Server2.Properties.ImageId, "ami-0latest00000000");
        assert.ok(stub.operations().includes("DeleteParameter"), "the old ready status is removed");
      } else {
        assert.equal(amiReads, 0);
        assert.equal(template.Resources.Iperf3Server1.Properties.ImageId, "ami-0pinned000000000");
      }
    }
  });

  test("breaker 3: deploy fails (not carries on) when the server never reports ready; a stale status does not count", async () => {
    const stale = JSON.stringify({
      version: "3.16",
      padding: "oaep",
      ports: "5201-5201",
      instanceId: "i-0old00000000000000",
    });
    const stub = new AwsStub()
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", serverOutputs))
      .on("GetParameter", secretsPresent(stale))
      .on("HeadObject", { statusCode: 200, headers: {}, body: "" })
      .on("UpdateStack", ok("UpdateStack"));
    await assert.rejects(
      deployStack(stubbedClients(stub), {
        ...options,
        serverReady: { pollIntervalMs: 1, timeoutMs: 30 },
        server: { instanceType: "c8gn.large", ttlHours: 3, ports: 1, idleTimeoutSeconds: 30 },
      }),
      (error: Error) =>
        error instanceof ServerNotReadyError &&
        /i-0new00000000000000 did not report ready/.test(error.message),
    );
  });

  test("breaker 2: no default VPC: a clear error naming --subnet-id before any change; a private subnet is refused", async () => {
    const stub = defaultVpcResponses(new AwsStub(), { defaultVpc: false }).on(
      "DescribeStacks",
      stackDoesNotExist,
    );
    await assert.rejects(
      deployStack(stubbedClients(stub), {
        ...options,
        server: { instanceType: "c8gn.large", ttlHours: 3, ports: 1, idleTimeoutSeconds: 30 },
      }),
      /no default VPC: pass --subnet-id/,
    );
    assert.deepEqual(stub.operations(), ["DescribeStacks", "DescribeVpcs"]);
    const privateSubnet = defaultVpcResponses(new AwsStub(), { igw: false }).on(
      "DescribeStacks",
      stackDoesNotExist,
    );
    await assert.rejects(
      deployStack(stubbedClients(privateSubnet), {
        ...options,
        server: {
          instanceType: "c8gn.large",
          ttlHours: 3,
          ports: 1,
          idleTimeoutSeconds: 30,
          subnetId: "subnet-0a1b2c3d4e5f60718",
        },
      }),
      /no route 0.0.0.0\/0 to an internet gateway/,
    );
    assert.ok(!privateSubnet.operations().some((op) => /Create|Update|Put/.test(op)));
  });
  test("the server's subnet is in a zone that offers its instance type (DescribeInstanceTypeOfferings)", async () => {
    const vpc = "vpc-0a1b2c3d4e5f60718";
    const subnet = (id: string, zone: string) =>
      `<item><subnetId>${id}</subnetId><vpcId>${vpc}</vpcId><availabilityZone>${zone}</availabilityZone><defaultForAz>true</defaultForAz><mapPublicIpOnLaunch>true</mapPublicIpOnLaunch></item>`;
    const stub = () =>
      new AwsStub()
        .on(
          "DescribeVpcs",
          ec2Xml(
            "DescribeVpcs",
            `<vpcSet><item><vpcId>${vpc}</vpcId><isDefault>true</isDefault></item></vpcSet>`,
          ),
        )
        .on(
          "DescribeRouteTables",
          ec2Xml(
            "DescribeRouteTables",
            `<routeTableSet><item><routeTableId>rtb-0a1b2c3d</routeTableId><vpcId>${vpc}</vpcId><routeSet><item><destinationCidrBlock>0.0.0.0/0</destinationCidrBlock><gatewayId>igw-0a1b2c3d</gatewayId></item></routeSet></item></routeTableSet>`,
          ),
        )
        .on("DescribeSubnets", (request) =>
          ec2Xml(
            "DescribeSubnets",
            `<subnetSet>${request.input["SubnetId.1"] === "subnet-0aaaaaaaaaaaaaaaa" ? subnet("subnet-0aaaaaaaaaaaaaaaa", "us-west-2a") : subnet("subnet-0aaaaaaaaaaaaaaaa", "us-west-2a") + subnet("subnet-0bbbbbbbbbbbbbbbb", "us-west-2b")}</subnetSet>`,
          ),
        )
        .on(
          "DescribeInstanceTypeOfferings",
          ec2Xml(
            "DescribeInstanceTypeOfferings",
            "<instanceTypeOfferingSet><item><instanceType>c8gn.large</instanceType><locationType>availability-zone</locationType><location>us-west-2b</location></item></instanceTypeOfferingSet>",
          ),
        );
    const chooser = stub();
    const chosen = await resolveServerNetwork(
      stubbedClients(chooser).ec2,
      { instanceType: "c8gn.large" },
      {},
      "us-west-2",
    );
    assert.equal(chosen.subnetId, "subnet-0bbbbbbbbbbbbbbbb", "us-west-2a does not offer c8gn.large");
    const offering = chooser.requests.find((r) => r.operation === "DescribeInstanceTypeOfferings");
    assert.equal(offering?.input.LocationType, "availability-zone");
    assert.equal(offering?.input["Filter.1.Value.1"], "c8gn.large");
    await assert.rejects(
      resolveServerNetwork(
        stubbedClients(stub()).ec2,
        { instanceType: "c8gn.large", subnetId: "subnet-0aaaaaaaaaaaaaaaa" },
        {},
        "us-west-2",
      ),
      /subnet-id: subnet-0aaaaaaaaaaaaaaaa is in us-west-2a, which does not offer c8gn.large \(offered in us-west-2b\)/,
    );
  });

  test("--vpc-id: a private subnet ranked first is passed over for a public one (issue 29, item 9)", async () => {
    const vpc = "vpc-0a1b2c3d4e5f60718";
    const subnet = (id: string, zone: string, mapPublic: boolean) =>
      `<item><subnetId>${id}</subnetId><vpcId>${vpc}</vpcId><availabilityZone>${zone}</availabilityZone><defaultForAz>false</defaultForAz><mapPublicIpOnLaunch>${mapPublic}</mapPublicIpOnLaunch></item>`;
    const table = (id: string, gateway: string, association: string) =>
      `<item><routeTableId>${id}</routeTableId><vpcId>${vpc}</vpcId>${association}<routeSet><item><destinationCidrBlock>0.0.0.0/0</destinationCidrBlock><gatewayId>${gateway}</gatewayId></item></routeSet></item>`;
    const stub = (publicSubnetRoutes: boolean) =>
      new AwsStub()
        // the private subnet gives public addresses (ranked first) but routes through a NAT gateway
        .on(
          "DescribeSubnets",
          ec2Xml(
            "DescribeSubnets",
            `<subnetSet>${subnet("subnet-0aaaaaaaaaaaaaaaa", "us-west-2a", true)}${subnet("subnet-0bbbbbbbbbbbbbbbb", "us-west-2b", false)}</subnetSet>`,
          ),
        )
        .on(
          "DescribeInstanceTypeOfferings",
          ec2Xml(
            "DescribeInstanceTypeOfferings",
            `<instanceTypeOfferingSet>${["us-west-2a", "us-west-2b"].map((zone) => `<item><instanceType>c8gn.large</instanceType><locationType>availability-zone</locationType><location>${zone}</location></item>`).join("")}</instanceTypeOfferingSet>`,
          ),
        )
        .on("DescribeRouteTables", (request) => {
          const subnetId = request.input["Filter.1.Value.1"];
          if (subnetId === "subnet-0aaaaaaaaaaaaaaaa")
            return ec2Xml(
              "DescribeRouteTables",
              `<routeTableSet>${table("rtb-0a", "nat-0a1b2c3d", "")}</routeTableSet>`,
            );
          if (subnetId === "subnet-0bbbbbbbbbbbbbbbb")
            return ec2Xml(
              "DescribeRouteTables",
              `<routeTableSet>${table("rtb-0b", publicSubnetRoutes ? "igw-0a1b2c3d" : "nat-0a1b2c3d", "")}</routeTableSet>`,
            );
          return ec2Xml("DescribeRouteTables", "<routeTableSet/>");
        });
    const chosen = await resolveServerNetwork(
      stubbedClients(stub(true)).ec2,
      { instanceType: "c8gn.large", vpcId: vpc },
      {},
      "us-west-2",
    );
    assert.deepEqual(chosen, { vpcId: vpc, subnetId: "subnet-0bbbbbbbbbbbbbbbb" });
    await assert.rejects(
      resolveServerNetwork(
        stubbedClients(stub(false)).ec2,
        { instanceType: "c8gn.large", vpcId: vpc },
        {},
        "us-west-2",
      ),
      /vpc-id: no subnet of vpc-0a1b2c3d4e5f60718 in a zone offering c8gn.large routes 0.0.0.0\/0 to an internet gateway \(subnet-0aaaaaaaaaaaaaaaa, subnet-0bbbbbbbbbbbbbbbb\)/,
    );
  });

  test("a deploy without --with-server refuses to delete a running server, unless --remove-server", async () => {
    const running = {
      ...fullOutputs,
      ServerInstanceId: "i-0123456789abcdef0",
      ServerExpiresAt: "2026-11-29T23:00:00.000Z",
    };
    const stub = new AwsStub().on("DescribeStacks", describeStacks("UPDATE_COMPLETE", running));
    await assert.rejects(
      deployStack(stubbedClients(stub), options),
      /the stack runs the iperf3 server i-0123456789abcdef0 .*: deploy --with-server to keep it, or --remove-server to delete it/,
    );
    assert.deepEqual(stub.operations(), ["DescribeStacks"], "nothing changed");
    const removing = new AwsStub()
      .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", running))
      .on("HeadObject", { statusCode: 200, headers: {}, body: "" })
      .on("UpdateStack", ok("UpdateStack"));
    await deployStack(stubbedClients(removing), { ...options, removeServer: true });
    const template = JSON.parse(
      String(removing.requests.find((r) => r.operation === "UpdateStack")?.input.TemplateBody),
    );
    assert.equal(template.Resources.Iperf3Server1, undefined, "removed, as asked");
  });
});
