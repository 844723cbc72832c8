import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { teardownRegion } from "../../../src/platforms/aws/teardown.js";
import { disableSchedules, listScheduleNames } from "../../../src/scheduled-studies/schedule-admin.js";
import { withScheduleClients } from "../../../src/scheduled-studies/schedule-clients.js";
import {
  AwsStub,
  describeInstance,
  describeStacks,
  ec2Error,
  json,
  jsonError,
  queryError,
  queryXml,
  restJson,
  restJsonError,
  stackDoesNotExist,
  stubbedClients,
  testCredentials,
} from "./aws-stub.js";

const bucket = "lambda-netbench-bucket-1a2b3c";
const xml = (body: string) => ({
  statusCode: 200,
  headers: { "content-type": "application/xml" },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});
const s3ns = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const fast = { stackPoll: { pollIntervalMs: 1, timeoutMs: 5_000 }, verify: { attempts: 3, intervalMs: 1 } };

describe("teardown on the real SDK clients (stubbed transport)", () => {
  test("versions, the stack's bucket (versions, delete markers, uploads), stack, parameters, and only then the look-ups that verify", async () => {
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", { BucketName: bucket, FunctionName: "lambda-netbench-agent" }),
        describeStacks("DELETE_IN_PROGRESS"),
        stackDoesNotExist,
      )
      .on("ListAliases", restJson({ Aliases: [{ Name: "m1024-arm64", FunctionVersion: "7" }] }))
      .on("DeleteAlias", { statusCode: 204, headers: {}, body: "" })
      .on("ListVersionsByFunction", restJson({ Versions: [{ Version: "$LATEST" }, { Version: "7" }] }))
      .on("DeleteFunction", { statusCode: 204, headers: {}, body: "" })
      .on(
        "GetResources",
        json({
          ResourceTagMappingList: [
            {
              ResourceARN:
                "arn:aws:ssm:us-west-2:123456789012:parameter/lambda-netbench/iperf3/server-status",
            },
          ],
          PaginationToken: "",
        }),
        json({
          ResourceTagMappingList: [
            { ResourceARN: "arn:aws:ec2:us-west-2:123456789012:instance/i-0abc" },
            { ResourceARN: "arn:aws:ec2:us-west-2:123456789012:instance/i-0def" },
          ],
          PaginationToken: "",
        }),
      )
      .on(
        "DescribeInstances",
        describeInstance("i-0abc", "terminated"),
        ec2Error("InvalidInstanceID.NotFound", "The instance ID 'i-0def' does not exist"),
      )
      .on(
        "ListObjectVersions",
        xml(
          `<ListVersionsResult ${s3ns}><Name>${bucket}</Name><IsTruncated>true</IsTruncated><NextKeyMarker>test-objects/a</NextKeyMarker><NextVersionIdMarker>v2</NextVersionIdMarker><Version><Key>test-objects/a</Key><VersionId>v1</VersionId><IsLatest>false</IsLatest><Size>5</Size></Version><DeleteMarker><Key>test-objects/a</Key><VersionId>v2</VersionId><IsLatest>true</IsLatest></DeleteMarker></ListVersionsResult>`,
        ),
        xml(
          `<ListVersionsResult ${s3ns}><Name>${bucket}</Name><IsTruncated>false</IsTruncated><Version><Key>agent/abc.zip</Key><VersionId>null</VersionId><IsLatest>true</IsLatest><Size>3</Size></Version></ListVersionsResult>`,
        ),
      )
      .on("DeleteObjects", xml(`<DeleteResult ${s3ns}></DeleteResult>`))
      .on(
        "ListMultipartUploads",
        xml(
          `<ListMultipartUploadsResult ${s3ns}><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated><Upload><Key>test-objects/b</Key><UploadId>up-1</UploadId></Upload></ListMultipartUploadsResult>`,
        ),
      )
      .on("DELETE /test-objects/b", { statusCode: 204, headers: {}, body: "" })
      .on("DeleteStack", queryXml("DeleteStack", ""))
      .on(
        "ListStackResources",
        queryXml(
          "ListStackResources",
          `<StackResourceSummaries>${[
            ["AgentRole", "AWS::IAM::Role", "lambda-netbench-AgentRole-1A2B3C4D5E6F"],
            [
              "ServerInstanceProfile",
              "AWS::IAM::InstanceProfile",
              "lambda-netbench-ServerInstanceProfile-9Z8Y7X",
            ],
            ["AgentLogGroup", "AWS::Logs::LogGroup", "/aws/lambda/lambda-netbench-agent"],
            ["Bucket", "AWS::S3::Bucket", bucket],
          ]
            .map(
              ([id, type, name]) =>
                `<member><LogicalResourceId>${id}</LogicalResourceId><PhysicalResourceId>${name}</PhysicalResourceId><ResourceType>${type}</ResourceType><ResourceStatus>UPDATE_COMPLETE</ResourceStatus><LastUpdatedTimestamp>2026-11-30T10:00:00Z</LastUpdatedTimestamp></member>`,
            )
            .join("")}</StackResourceSummaries>`,
        ),
      )
      // IAM deletes lag: the role is still there at the first check, gone at the second
      .on(
        "GetRole",
        queryXml(
          "GetRole",
          "<Role><RoleName>lambda-netbench-AgentRole-1A2B3C4D5E6F</RoleName><Arn>arn:aws:iam::123456789012:role/lambda-netbench-AgentRole-1A2B3C4D5E6F</Arn><Path>/</Path><RoleId>AROAEXAMPLE</RoleId><CreateDate>2026-11-30T10:00:00Z</CreateDate></Role>",
        ),
        queryError(
          "NoSuchEntity",
          "The role with name lambda-netbench-AgentRole-1A2B3C4D5E6F cannot be found.",
          404,
        ),
      )
      .on(
        "GetInstanceProfile",
        queryError(
          "NoSuchEntity",
          "Instance Profile lambda-netbench-ServerInstanceProfile-9Z8Y7X cannot be found.",
          404,
        ),
      )
      .on("DescribeLogGroups", json({ logGroups: [] }))
      .on(
        "GetParametersByPath",
        json({
          Parameters: [
            { Name: "/lambda-netbench/iperf3/private-key" },
            { Name: "/lambda-netbench/iperf3/password" },
          ],
        }),
      )
      .on(
        "DeleteParameters",
        json({
          DeletedParameters: ["/lambda-netbench/iperf3/private-key", "/lambda-netbench/iperf3/password"],
          InvalidParameters: [],
        }),
      );
    const result = await teardownRegion(stubbedClients(stub), fast);
    assert.deepEqual(stub.operations(), [
      "DescribeStacks",
      "ListAliases",
      "DeleteAlias",
      "ListVersionsByFunction",
      "DeleteFunction",
      "ListObjectVersions",
      "DeleteObjects",
      "ListObjectVersions",
      "DeleteObjects",
      "ListMultipartUploads",
      "DELETE /test-objects/b",
      "ListStackResources",
      "DeleteStack",
      "DescribeStacks",
      "DescribeStacks",
      "GetParametersByPath",
      "DeleteParameters",
      "GetResources",
      "DescribeLogGroups",
      "GetRole",
      "GetInstanceProfile",
      "GetResources",
      "DescribeInstances",
      "DescribeInstances",
      "DescribeLogGroups",
      "GetRole",
      "GetInstanceProfile",
    ]);
    // breaker 11: IAM roles, instance profiles and log groups verified gone by name
    assert.deepEqual(result.checkedByName, [
      "role lambda-netbench-AgentRole-1A2B3C4D5E6F",
      "instance-profile lambda-netbench-ServerInstanceProfile-9Z8Y7X",
      "log-group /aws/lambda/lambda-netbench-agent",
      "log-group /aws/lambda/lambda-netbench-*",
    ]);
    assert.deepEqual(result.remainingByName, []);
    const find = (op: string) => stub.requests.filter((r) => r.operation === op);
    assert.equal(find("DeleteFunction")[0]?.input.Qualifier, "7", "$LATEST is never deleted by qualifier");
    assert.equal(find("ListObjectVersions")[1]?.input["key-marker"], "test-objects/a");
    assert.equal(find("DELETE /test-objects/b")[0]?.input.uploadId, "up-1");
    assert.deepEqual(find("GetResources")[0]?.input.TagFilters, [{ Key: "lambda-netbench" }]);
    assert.equal(result.deletedObjectVersions, 3);
    assert.equal(result.abortedUploads, 1);
    assert.deepEqual(result.remaining, [], "the lagging tagging API was asked again until clean");
    assert.deepEqual(result.terminatedInstances, [
      "arn:aws:ec2:us-west-2:123456789012:instance/i-0abc",
      "arn:aws:ec2:us-west-2:123456789012:instance/i-0def",
    ]);
    assert.equal(find("DescribeInstances")[0]?.input["InstanceId.1"], "i-0abc");
  });

  test("idempotent: a second run on an empty region only reads", async () => {
    const stub = new AwsStub()
      .on("DescribeStacks", stackDoesNotExist)
      .on(
        "ListAliases",
        restJsonError(
          "ResourceNotFoundException",
          "Function not found: arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent",
          404,
        ),
      )
      .on("GetResources", json({ ResourceTagMappingList: [], PaginationToken: "" }))
      .on("GetParametersByPath", json({ Parameters: [] }))
      .on("DescribeLogGroups", json({ logGroups: [] }));
    const result = await teardownRegion(stubbedClients(stub), fast);
    assert.ok(
      stub.operations().every((op) => /^(Describe|List|Get)/.test(op)),
      stub.operations().join(","),
    );
    assert.equal(result.stackExisted, false);
    assert.deepEqual(result.remaining, []);
  });
  test("a schedule's nested stack: its roles and the recorder's log group are listed from it and verified gone by name; a stray log group of ours is reported", async () => {
    const nestedArn =
      "arn:aws:cloudformation:us-west-2:123456789012:stack/lambda-netbench-ScheduleDaily-1Q2W3E4R5T6Y/5f6e7d8c-0000-1111-2222-333344445555";
    const member = ([id, type, name]: string[]) =>
      `<member><LogicalResourceId>${id}</LogicalResourceId><PhysicalResourceId>${name}</PhysicalResourceId><ResourceType>${type}</ResourceType><ResourceStatus>CREATE_COMPLETE</ResourceStatus><LastUpdatedTimestamp>2026-11-30T10:00:00Z</LastUpdatedTimestamp></member>`;
    const nestedRoles = [
      "lambda-netbench-ScheduleDaily-1Q2W3-RecorderRole-AB12CD34EF56",
      "lambda-netbench-ScheduleDaily-1Q2W-StateMachineRole-GH78IJ90KL12",
      "lambda-netbench-ScheduleDaily-1Q2W3E-SchedulerRole-MN34OP56QR78",
    ];
    const recorderLogGroup = "/aws/lambda/lambda-netbench-daily-recorder";
    const stray = "/aws/lambda/lambda-netbench-weekly-recorder";
    let logChecks = 0;
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", { BucketName: bucket, FunctionName: "lambda-netbench-agent" }),
        stackDoesNotExist,
      )
      .on("ListAliases", restJson({ Aliases: [] }))
      .on("ListVersionsByFunction", restJson({ Versions: [{ Version: "$LATEST" }] }))
      .on("GetResources", json({ ResourceTagMappingList: [], PaginationToken: "" }))
      .on(
        "ListObjectVersions",
        xml(
          `<ListVersionsResult ${s3ns}><Name>${bucket}</Name><IsTruncated>false</IsTruncated></ListVersionsResult>`,
        ),
      )
      .on(
        "ListMultipartUploads",
        xml(
          `<ListMultipartUploadsResult ${s3ns}><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>`,
        ),
      )
      .on("ListStackResources", (request) =>
        queryXml(
          "ListStackResources",
          `<StackResourceSummaries>${(request.input.StackName === nestedArn
            ? [
                ["RecorderLogGroup", "AWS::Logs::LogGroup", recorderLogGroup],
                ["RecorderRole", "AWS::IAM::Role", nestedRoles[0] as string],
                ["StateMachineRole", "AWS::IAM::Role", nestedRoles[1] as string],
                ["SchedulerRole", "AWS::IAM::Role", nestedRoles[2] as string],
                [
                  "StateMachine",
                  "AWS::StepFunctions::StateMachine",
                  "arn:aws:states:us-west-2:123456789012:stateMachine:lambda-netbench-daily",
                ],
              ]
            : [
                ["AgentRole", "AWS::IAM::Role", "lambda-netbench-AgentRole-1A2B3C4D5E6F"],
                ["AgentLogGroup", "AWS::Logs::LogGroup", "/aws/lambda/lambda-netbench-agent"],
                ["ScheduleDaily", "AWS::CloudFormation::Stack", nestedArn],
              ]
          )
            .map(member)
            .join("")}</StackResourceSummaries>`,
        ),
      )
      .on("DeleteStack", queryXml("DeleteStack", ""))
      // the state machine's role lags one check; every other role is gone
      .on("GetRole", (request) =>
        request.input.RoleName === nestedRoles[1] && logChecks < 2
          ? queryXml(
              "GetRole",
              `<Role><RoleName>${nestedRoles[1]}</RoleName><Arn>arn:aws:iam::123456789012:role/${nestedRoles[1]}</Arn><Path>/</Path><RoleId>AROAEXAMPLE2</RoleId><CreateDate>2026-11-30T10:00:00Z</CreateDate></Role>`,
            )
          : queryError("NoSuchEntity", `The role with name ${request.input.RoleName} cannot be found.`, 404),
      )
      // the recorder's log group lags one check; a stray log group of ours stays
      .on("DescribeLogGroups", (request) => {
        logChecks += 1;
        assert.equal(request.input.logGroupNamePrefix, "/aws/lambda/lambda-netbench-");
        const groups = logChecks === 1 ? [recorderLogGroup, stray] : [stray];
        return json({
          logGroups: groups.map((name) => ({
            logGroupName: name,
            arn: `arn:aws:logs:us-west-2:123456789012:log-group:${name}:*`,
          })),
        });
      })
      .on("GetParametersByPath", json({ Parameters: [] }));
    const result = await teardownRegion(stubbedClients(stub), fast);
    const listed = stub.requests
      .filter((r) => r.operation === "ListStackResources")
      .map((r) => r.input.StackName);
    assert.deepEqual(listed, ["lambda-netbench", nestedArn], "the nested stack is listed by its ARN");
    assert.deepEqual(result.checkedByName, [
      "role lambda-netbench-AgentRole-1A2B3C4D5E6F",
      "log-group /aws/lambda/lambda-netbench-agent",
      `log-group ${recorderLogGroup}`,
      ...nestedRoles.map((name) => `role ${name}`),
      "log-group /aws/lambda/lambda-netbench-*",
    ]);
    assert.equal(
      stub.requests.filter((r) => r.operation === "DescribeLogGroups").length,
      3,
      "checked until the attempts ran out",
    );
    assert.deepEqual(result.remainingByName, [`log-group ${stray}`]);
    const roleChecks = stub.requests.filter((r) => r.operation === "GetRole").map((r) => r.input.RoleName);
    assert.equal(roleChecks.filter((name) => name === nestedRoles[1]).length, 3);
  });
  test("a nested stack already gone (teardown run again): skipped, the rest still checked by name", async () => {
    const nestedArn =
      "arn:aws:cloudformation:us-west-2:123456789012:stack/lambda-netbench-ScheduleDaily-1Q2W3E4R5T6Y/5f6e7d8c-0000-1111-2222-333344445555";
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("DELETE_FAILED", { BucketName: bucket, FunctionName: "lambda-netbench-agent" }),
        stackDoesNotExist,
      )
      .on("ListAliases", restJson({ Aliases: [] }))
      .on("ListVersionsByFunction", restJson({ Versions: [{ Version: "$LATEST" }] }))
      .on("GetResources", json({ ResourceTagMappingList: [], PaginationToken: "" }))
      .on(
        "ListObjectVersions",
        xml(
          `<ListVersionsResult ${s3ns}><Name>${bucket}</Name><IsTruncated>false</IsTruncated></ListVersionsResult>`,
        ),
      )
      .on(
        "ListMultipartUploads",
        xml(
          `<ListMultipartUploadsResult ${s3ns}><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>`,
        ),
      )
      .on("ListStackResources", (request) =>
        request.input.StackName === nestedArn
          ? queryError("ValidationError", `Stack with id ${nestedArn} does not exist`)
          : queryXml(
              "ListStackResources",
              `<StackResourceSummaries><member><LogicalResourceId>AgentRole</LogicalResourceId><PhysicalResourceId>lambda-netbench-AgentRole-1A2B3C4D5E6F</PhysicalResourceId><ResourceType>AWS::IAM::Role</ResourceType><ResourceStatus>DELETE_FAILED</ResourceStatus><LastUpdatedTimestamp>2026-11-30T10:00:00Z</LastUpdatedTimestamp></member><member><LogicalResourceId>ScheduleDaily</LogicalResourceId><PhysicalResourceId>${nestedArn}</PhysicalResourceId><ResourceType>AWS::CloudFormation::Stack</ResourceType><ResourceStatus>DELETE_COMPLETE</ResourceStatus><LastUpdatedTimestamp>2026-11-30T10:00:00Z</LastUpdatedTimestamp></member></StackResourceSummaries>`,
            ),
      )
      .on("DeleteStack", queryXml("DeleteStack", ""))
      .on("GetRole", queryError("NoSuchEntity", "The role cannot be found.", 404))
      .on("DescribeLogGroups", json({ logGroups: [] }))
      .on("GetParametersByPath", json({ Parameters: [] }));
    const result = await teardownRegion(stubbedClients(stub), fast);
    assert.deepEqual(result.checkedByName, [
      "role lambda-netbench-AgentRole-1A2B3C4D5E6F",
      "log-group /aws/lambda/lambda-netbench-agent",
      "log-group /aws/lambda/lambda-netbench-*",
    ]);
    assert.deepEqual(result.remainingByName, []);
  });

  test("schedules are disabled before anything is deleted, and verified gone after", async () => {
    const seed = {
      Name: "lambda-netbench-seed",
      GroupName: "default",
      ScheduleExpression: "rate(1 day)",
      ScheduleExpressionTimezone: "UTC",
      FlexibleTimeWindow: { Mode: "OFF" },
      State: "ENABLED",
      Target: {
        Arn: "arn:aws:states:us-west-2:123456789012:stateMachine:lambda-netbench-seed",
        RoleArn: "arn:aws:iam::123456789012:role/lambda-netbench-ScheduleSeed-SchedulerRole-1A2B",
        Input: '{"bucket":"b","schedule":"seed"}',
      },
    };
    const listing = (names: string[]) =>
      json({ Schedules: names.map((Name) => ({ Name, GroupName: "default", State: "ENABLED" })) });
    const run = async (afterDeletion: string[]) => {
      const stub = new AwsStub()
        .on(
          "DescribeStacks",
          describeStacks("UPDATE_COMPLETE", { FunctionName: "lambda-netbench-agent" }),
          stackDoesNotExist,
        )
        .on("GET /schedules", listing(["lambda-netbench-seed"]), listing(afterDeletion))
        .on("GET /schedules/lambda-netbench-seed", json(seed))
        .on(
          "PUT /schedules/lambda-netbench-seed",
          json({ ScheduleArn: "arn:aws:scheduler:::schedule/default/x" }),
        )
        .on("ListAliases", restJson({ Aliases: [] }))
        .on("ListVersionsByFunction", restJson({ Versions: [{ Version: "$LATEST" }] }))
        .on("GetResources", json({ ResourceTagMappingList: [], PaginationToken: "" }))
        .on("ListStackResources", queryXml("ListStackResources", "<StackResourceSummaries/>"))
        .on("DeleteStack", queryXml("DeleteStack", ""))
        .on("DescribeLogGroups", json({ logGroups: [] }))
        .on("GetParametersByPath", json({ Parameters: [] }));
      const base = stubbedClients(stub);
      const scheduling = withScheduleClients(base, {
        credentials: testCredentials,
        requestHandler: stub.handler,
      });
      const result = await teardownRegion(base, {
        ...fast,
        verify: { attempts: 2, intervalMs: 1 },
        schedules: {
          disable: () => disableSchedules(scheduling),
          remaining: () => listScheduleNames(scheduling),
        },
      });
      return { stub, result };
    };
    const { stub, result } = await run([]);
    const order = stub.operations();
    const disable = order.indexOf("PUT /schedules/lambda-netbench-seed");
    assert.ok(disable >= 0 && disable < order.indexOf("ListAliases"), order.join(","));
    const update = stub.requests[disable]?.input ?? {};
    assert.equal(update.State, "DISABLED");
    assert.deepEqual(update.Target, seed.Target, "the rest of the schedule as it was");
    assert.equal(update.ScheduleExpression, "rate(1 day)");
    assert.deepEqual(result.disabledSchedules, ["lambda-netbench-seed"]);
    assert.deepEqual(result.remainingSchedules, []);
    const left = await run(["lambda-netbench-seed"]);
    assert.deepEqual(
      left.result.remainingSchedules,
      ["lambda-netbench-seed"],
      "still listed: reported, not hidden",
    );
  });

  test("an SCP denying the scheduler, the tagging API and CloudWatch Logs: everything is deleted, and each look-up is reported as not verified with its permission", async () => {
    const scp = (action: string) =>
      `User: arn:aws:sts::123456789012:assumed-role/Bench/operator is not authorized to perform: ${action} on resource: * with an explicit deny in a service control policy`;
    const stub = new AwsStub()
      .on(
        "DescribeStacks",
        describeStacks("UPDATE_COMPLETE", { BucketName: bucket, FunctionName: "lambda-netbench-agent" }),
        stackDoesNotExist,
      )
      .on("GET /schedules", restJsonError("AccessDeniedException", scp("scheduler:ListSchedules"), 403))
      .on("GetResources", jsonError("AccessDeniedException", scp("tag:GetResources"), 400))
      .on("DescribeLogGroups", jsonError("AccessDeniedException", scp("logs:DescribeLogGroups"), 400))
      .on("ListAliases", restJson({ Aliases: [] }))
      .on("ListVersionsByFunction", restJson({ Versions: [{ Version: "$LATEST" }] }))
      .on(
        "ListObjectVersions",
        xml(
          `<ListVersionsResult ${s3ns}><Name>${bucket}</Name><IsTruncated>false</IsTruncated></ListVersionsResult>`,
        ),
      )
      .on(
        "ListMultipartUploads",
        xml(
          `<ListMultipartUploadsResult ${s3ns}><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>`,
        ),
      )
      .on("ListStackResources", queryXml("ListStackResources", "<StackResourceSummaries/>"))
      .on("DeleteStack", queryXml("DeleteStack", ""))
      .on("GetParametersByPath", json({ Parameters: [{ Name: "/lambda-netbench/iperf3/password" }] }))
      .on("DeleteParameters", json({ DeletedParameters: ["/lambda-netbench/iperf3/password"] }));
    const base = stubbedClients(stub);
    const scheduling = withScheduleClients(base, {
      credentials: testCredentials,
      requestHandler: stub.handler,
    });
    const result = await teardownRegion(base, {
      ...fast,
      schedules: {
        disable: () => disableSchedules(scheduling),
        remaining: () => listScheduleNames(scheduling),
      },
    });
    const order = stub.operations();
    assert.ok(order.includes("DeleteStack"), order.join(","));
    assert.ok(order.includes("DeleteParameters"), order.join(","));
    // nothing that only verifies came before the deletion but the schedules' disabling (best effort)
    assert.ok(order.indexOf("GetResources") > order.indexOf("DeleteStack"), order.join(","));
    assert.deepEqual(result.deletedParameters, ["/lambda-netbench/iperf3/password"]);
    assert.deepEqual(result.notVerified, [
      "the schedules were not disabled first (they go with the stack) (scheduler:ListSchedules denied by a service control policy: AccessDeniedException)",
      "not verified: nothing tagged lambda-netbench remains (tag:GetResources denied by a service control policy: AccessDeniedException)",
      "not verified: the log groups are gone (logs:DescribeLogGroups denied by a service control policy: AccessDeniedException)",
      "not verified: no schedule remains (scheduler:ListSchedules denied by a service control policy: AccessDeniedException)",
    ]);
    // a denied look-up is asked once, not at every verification attempt
    assert.equal(order.filter((op) => op === "GetResources").length, 1);
  });
});
