import { randomUUID } from "node:crypto";

/**
 * The Service Quotas answers moto lacks for Lambda's bandwidth quota (L-14320ECE): the value in
 * force and AWS's default, the increase request and its history, with the shapes and error
 * codes AWS's JSON 1.1 protocol uses. The rehearsal plays AWS Support too: `decide` moves an
 * open request to APPROVED (the value in force becomes the one asked for) or DENIED.
 */

export const BANDWIDTH_QUOTA_CODE = "L-14320ECE";
const QUOTA_NAME = "Network bandwidth per execution environment";
const DEFAULT_MBPS = 625;

export interface QuotaAnswer {
  status: number;
  body: unknown;
  /** JSON 1.1 errors name their code in this header as well as in `__type`. */
  errorType?: string;
}

interface RequestedChange {
  Id: string;
  CaseId: string;
  ServiceCode: "lambda";
  ServiceName: "AWS Lambda";
  QuotaCode: string;
  QuotaName: string;
  DesiredValue: number;
  Status: "PENDING" | "CASE_OPENED" | "APPROVED" | "DENIED" | "CASE_CLOSED";
  Created: number;
  LastUpdated: number;
  Requester: string;
  QuotaArn: string;
  GlobalQuota: false;
  Unit: "None";
}

function error(status: number, type: string, message: string): QuotaAnswer {
  return { status, errorType: type, body: { __type: type, message } };
}

export class BandwidthQuota {
  private readonly valueMbps = new Map<string, number>();
  private readonly requests: (RequestedChange & { region: string })[] = [];

  constructor(private readonly accountId: string) {}

  private quotaArn(region: string): string {
    return `arn:aws:servicequotas:${region}:${this.accountId}:lambda/${BANDWIDTH_QUOTA_CODE}`;
  }

  private quota(region: string, value: number) {
    return {
      ServiceCode: "lambda",
      ServiceName: "AWS Lambda",
      QuotaArn: this.quotaArn(region),
      QuotaCode: BANDWIDTH_QUOTA_CODE,
      QuotaName: QUOTA_NAME,
      Value: value,
      Unit: "None",
      Adjustable: true,
      GlobalQuota: false,
    };
  }

  /** Does this JSON 1.1 call concern our quota (otherwise moto answers it)? */
  static concerns(target: string, body: { ServiceCode?: unknown; QuotaCode?: unknown }): boolean {
    return (
      /^ServiceQuotasV20190624\.(GetServiceQuota|GetAWSDefaultServiceQuota|RequestServiceQuotaIncrease|ListRequestedServiceQuotaChangeHistoryByQuota)$/.test(
        target,
      ) &&
      body.ServiceCode === "lambda" &&
      body.QuotaCode === BANDWIDTH_QUOTA_CODE
    );
  }

  answer(operation: string, region: string, body: Record<string, unknown>): QuotaAnswer {
    const inForce = this.valueMbps.get(region) ?? DEFAULT_MBPS;
    switch (operation) {
      case "GetServiceQuota":
        return { status: 200, body: { Quota: this.quota(region, inForce) } };
      case "GetAWSDefaultServiceQuota":
        return { status: 200, body: { Quota: this.quota(region, DEFAULT_MBPS) } };
      case "ListRequestedServiceQuotaChangeHistoryByQuota": {
        const status = body.Status;
        const mine = this.requests.filter((r) => r.region === region && (!status || r.Status === status));
        return { status: 200, body: { RequestedQuotas: mine.map(({ region: _, ...change }) => change) } };
      }
      case "RequestServiceQuotaIncrease":
        return this.request(region, body.DesiredValue, inForce);
      default:
        return error(400, "UnknownOperationException", `operation ${operation} is not supported`);
    }
  }

  private request(region: string, desired: unknown, inForce: number): QuotaAnswer {
    if (typeof desired !== "number" || !Number.isFinite(desired))
      return error(400, "IllegalArgumentException", "DesiredValue is required");
    if (desired <= inForce)
      return error(
        400,
        "IllegalArgumentException",
        `The requested quota value ${desired} must be greater than the current quota value ${inForce}.`,
      );
    if (
      this.requests.some((r) => r.region === region && (r.Status === "PENDING" || r.Status === "CASE_OPENED"))
    )
      return error(
        400,
        "ResourceAlreadyExistsException",
        "A quota increase request for this quota is already pending. Wait for it to complete before submitting another request.",
      );
    const now = Date.now() / 1000;
    const change: RequestedChange & { region: string } = {
      region,
      Id: randomUUID().replaceAll("-", ""),
      CaseId: "",
      ServiceCode: "lambda",
      ServiceName: "AWS Lambda",
      QuotaCode: BANDWIDTH_QUOTA_CODE,
      QuotaName: QUOTA_NAME,
      DesiredValue: desired,
      Status: "PENDING",
      Created: now,
      LastUpdated: now,
      Requester: JSON.stringify({
        accountId: this.accountId,
        callerArn: `arn:aws:iam::${this.accountId}:user/rehearsal`,
      }),
      QuotaArn: this.quotaArn(region),
      GlobalQuota: false,
      Unit: "None",
    };
    this.requests.push(change);
    const { region: _, ...answer } = change;
    return { status: 200, body: { RequestedQuota: answer } };
  }

  /** AWS Support's part: opens a case for the region's open request, then approves or denies it. */
  decide(region: string, decision: "APPROVED" | "DENIED"): void {
    const open = this.requests.find(
      (r) => r.region === region && (r.Status === "PENDING" || r.Status === "CASE_OPENED"),
    );
    if (!open) throw new Error(`no open bandwidth quota request in ${region}`);
    open.CaseId = `${Math.floor(10_000_000_000 + Math.random() * 89_999_999_999)}`;
    open.Status = decision;
    open.LastUpdated = Date.now() / 1000;
    if (decision === "APPROVED") this.valueMbps.set(region, open.DesiredValue);
  }
}
