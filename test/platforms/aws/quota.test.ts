import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createAwsClients } from "../../../src/platforms/aws/aws-clients.js";
import { patientRetries } from "../../../src/platforms/aws/call-retries.js";
import {
  getQuotaReport,
  QuotaNotFoundError,
  QuotaRequestRefused,
  requestQuotaIncrease,
} from "../../../src/platforms/aws/quota.js";
import { AwsStub, json, jsonError, stubbedClients, testCredentials } from "./aws-stub.js";

const quota = (value: number, code = "L-14320ECE") => ({
  ServiceCode: "lambda",
  ServiceName: "AWS Lambda",
  QuotaArn: `arn:aws:servicequotas:us-west-2:123456789012:lambda/${code}`,
  QuotaCode: code,
  QuotaName: "Network bandwidth per execution environment",
  Value: value,
  Unit: "None",
  Adjustable: true,
  GlobalQuota: false,
});
const noSuchQuota = jsonError(
  "NoSuchResourceException",
  "The request failed because the specified service quota doesn't exist.",
);
const history = (entries: object[]) => json({ RequestedQuotas: entries });
const change = (status: string, value: number, caseId?: string) => ({
  Id: `req-${status.toLowerCase()}`,
  ...(caseId ? { CaseId: caseId } : {}),
  ServiceCode: "lambda",
  QuotaCode: "L-14320ECE",
  QuotaName: "Network bandwidth per execution environment",
  DesiredValue: value,
  Status: status,
  Created: 1_785_000_000,
  LastUpdated: 1_785_100_000,
  Unit: "None",
});

describe("quota against the real Service Quotas client (stubbed transport)", () => {
  test("get: by code, value in force, AWS default, request history", async () => {
    const stub = new AwsStub()
      .on("GetServiceQuota", json({ Quota: quota(3000) }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: quota(625) }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", history([change("APPROVED", 3000, "case-1234")]));
    const report = await getQuotaReport(stubbedClients(stub).quotas, "us-west-2");
    assert.deepEqual(stub.operations(), [
      "GetServiceQuota",
      "GetAWSDefaultServiceQuota",
      "ListRequestedServiceQuotaChangeHistoryByQuota",
    ]);
    assert.deepEqual(stub.requests[0]?.input, { ServiceCode: "lambda", QuotaCode: "L-14320ECE" });
    assert.equal(stub.requests[0]?.headers["x-amz-target"], "ServiceQuotasV20190624.GetServiceQuota");
    assert.equal(report.matchedBy, "code");
    assert.equal(report.valueMbps, 3000);
    assert.equal(report.defaultMbps, 625);
    assert.equal(report.requests[0]?.caseId, "case-1234");
    assert.equal(report.requests[0]?.status, "APPROVED");
  });

  test("get: NoSuchResourceException on the code falls back to the name", async () => {
    const stub = new AwsStub()
      .on("GetServiceQuota", noSuchQuota)
      .on(
        "ListServiceQuotas",
        json({
          Quotas: [{ ...quota(1200, "L-0THERC0DE"), QuotaName: "Concurrent executions" }],
          NextToken: "page2",
        }),
        json({ Quotas: [quota(1500, "L-NEWC0DE1")] }),
      )
      .on("GetAWSDefaultServiceQuota", json({ Quota: quota(625, "L-NEWC0DE1") }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", history([]));
    const report = await getQuotaReport(stubbedClients(stub).quotas, "us-west-2");
    assert.deepEqual(stub.operations(), [
      "GetServiceQuota",
      "ListServiceQuotas",
      "ListServiceQuotas",
      "GetAWSDefaultServiceQuota",
      "ListRequestedServiceQuotaChangeHistoryByQuota",
    ]);
    assert.equal(stub.requests[2]?.input.NextToken, "page2");
    assert.equal(report.matchedBy, "name");
    assert.equal(report.quotaCode, "L-NEWC0DE1");
    assert.equal(report.valueMbps, 1500);
    assert.equal(stub.requests[3]?.input.QuotaCode, "L-NEWC0DE1");
  });

  test("get: nothing by code or name -> QuotaNotFoundError", async () => {
    const stub = new AwsStub()
      .on("GetServiceQuota", noSuchQuota)
      .on("ListServiceQuotas", json({ Quotas: [] }))
      .on("GetAWSDefaultServiceQuota", noSuchQuota)
      .on("ListAWSDefaultServiceQuotas", json({ Quotas: [] }));
    await assert.rejects(getQuotaReport(stubbedClients(stub).quotas, "us-west-2"), QuotaNotFoundError);
  });

  test("request: sends DesiredValue after checking what is in force", async () => {
    const stub = new AwsStub()
      .on("GetServiceQuota", json({ Quota: quota(625) }))
      .on("GetAWSDefaultServiceQuota", json({ Quota: quota(625) }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", history([change("DENIED", 3000, "case-1")]))
      .on("RequestServiceQuotaIncrease", json({ RequestedQuota: change("PENDING", 3000) }));
    const { request } = await requestQuotaIncrease(stubbedClients(stub).quotas, "us-west-2", 3000);
    assert.equal(stub.operations().at(-1), "RequestServiceQuotaIncrease");
    assert.deepEqual(stub.requests.at(-1)?.input, {
      ServiceCode: "lambda",
      QuotaCode: "L-14320ECE",
      DesiredValue: 3000,
    });
    assert.equal(request?.status, "PENDING");
  });

  for (const [name, value, inForce, open] of [
    ["a value not above the one in force", 3000, 3000, null],
    ["a second request while one is open", 3000, 625, "CASE_OPENED"],
  ] as const) {
    test(`request refuses ${name} (no RequestServiceQuotaIncrease)`, async () => {
      const stub = new AwsStub()
        .on("GetServiceQuota", json({ Quota: quota(inForce) }))
        .on("GetAWSDefaultServiceQuota", json({ Quota: quota(625) }))
        .on(
          "ListRequestedServiceQuotaChangeHistoryByQuota",
          history(open ? [change(open, 3000, "case-9")] : []),
        );
      await assert.rejects(
        requestQuotaIncrease(stubbedClients(stub).quotas, "us-west-2", value),
        QuotaRequestRefused,
      );
      assert.ok(!stub.operations().includes("RequestServiceQuotaIncrease"));
    });
  }

  test("throttling on Service Quotas is retried (call-retries.ts) and then succeeds", async () => {
    const stub = new AwsStub()
      .on(
        "GetServiceQuota",
        jsonError("TooManyRequestsException", "Rate exceeded"),
        json({ Quota: quota(625) }),
      )
      .on("GetAWSDefaultServiceQuota", json({ Quota: quota(625) }))
      .on("ListRequestedServiceQuotaChangeHistoryByQuota", history([]));
    const c = createAwsClients({
      region: "us-west-2",
      credentials: testCredentials,
      requestHandler: stub.handler,
      retries: { ...patientRetries, baseMs: 1 },
    });
    const report = await getQuotaReport(c.quotas, "us-west-2");
    assert.equal(report.valueMbps, 625);
    assert.deepEqual(stub.operations().slice(0, 2), ["GetServiceQuota", "GetServiceQuota"]);
  });
});
