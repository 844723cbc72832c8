import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createAwsClients } from "../../../src/platforms/aws/aws-clients.js";
import { teardownRegion } from "../../../src/platforms/aws/teardown.js";
import {
  AwsStub,
  describeInstance,
  describeStacks,
  ec2Error,
  json,
  queryXml,
  restJson,
  restJsonError,
  stackDoesNotExist,
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
const clients = (stub: AwsStub) =>
  createAwsClients({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    maxAttempts: 1,
  });

describe("teardown on the real SDK clients (stubbed transport)", () => {
  test("versions, bucket (versions, delete markers, uploads), stack, parameters, then verified by the tagging API", async () => {
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
            { ResourceARN: `arn:aws:s3:::${bucket}` },
            { ResourceARN: "arn:aws:lambda:us-west-2:123456789012:function:lambda-netbench-agent" },
          ],
          PaginationToken: "",
        }),
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
    const result = await teardownRegion(clients(stub), fast);
    assert.deepEqual(stub.operations(), [
      "DescribeStacks",
      "ListAliases",
      "DeleteAlias",
      "ListVersionsByFunction",
      "DeleteFunction",
      "GetResources",
      "ListObjectVersions",
      "DeleteObjects",
      "ListObjectVersions",
      "DeleteObjects",
      "ListMultipartUploads",
      "DELETE /test-objects/b",
      "DeleteStack",
      "DescribeStacks",
      "DescribeStacks",
      "GetParametersByPath",
      "DeleteParameters",
      "GetResources",
      "GetResources",
      "DescribeInstances",
      "DescribeInstances",
    ]);
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
      .on("GetParametersByPath", json({ Parameters: [] }));
    const result = await teardownRegion(clients(stub), fast);
    assert.ok(
      stub.operations().every((op) => /^(Describe|List|Get)/.test(op)),
      stub.operations().join(","),
    );
    assert.equal(result.stackExisted, false);
    assert.deepEqual(result.remaining, []);
  });
});
