import {
  GetAWSDefaultServiceQuotaCommand,
  GetServiceQuotaCommand,
  paginateListAWSDefaultServiceQuotas,
  paginateListRequestedServiceQuotaChangeHistoryByQuota,
  paginateListServiceQuotas,
  type RequestedServiceQuotaChange,
  RequestServiceQuotaIncreaseCommand,
  type ServiceQuota,
  type ServiceQuotasClient,
} from "@aws-sdk/client-service-quotas";
import { errorName } from "./backoff.js";

/**
 * The Lambda network bandwidth quota (Service Quotas `lambda` / `L-14320ECE`, Mbit/s, per
 * region). Public docs name the quota but not its code, so it is looked up by code first and
 * by name second, and every report says which matched.
 */
export const bandwidthQuotaServiceCode = "lambda";
export const bandwidthQuotaCode = "L-14320ECE";
export const bandwidthQuotaName = "Network bandwidth per execution environment";

/** Request states that are still open. */
export const openRequestStatuses = new Set(["PENDING", "CASE_OPENED"]);

export interface QuotaRequestRecord {
  id: string;
  caseId: string | null;
  desiredMbps: number | null;
  status: string;
  created: string | null;
  lastUpdated: string | null;
}

export interface QuotaReport {
  region: string;
  quotaCode: string;
  quotaName: string;
  /** How the quota was found: by its code, or by its name when the code did not match. */
  matchedBy: "code" | "name";
  /** Value in force in this account and region, Mbit/s (the default when never raised). */
  valueMbps: number | null;
  defaultMbps: number | null;
  unit: string | null;
  adjustable: boolean | null;
  requests: QuotaRequestRecord[];
}

export class QuotaNotFoundError extends Error {
  constructor(region: string) {
    super(
      `quota not found in ${region}: neither code ${bandwidthQuotaCode} nor name "${bandwidthQuotaName}" is listed for service ${bandwidthQuotaServiceCode}`,
    );
    this.name = "QuotaNotFoundError";
  }
}

function isNoSuchResource(error: unknown): boolean {
  return errorName(error) === "NoSuchResourceException";
}

function matches(quota: ServiceQuota, by: "code" | "name"): boolean {
  return by === "code"
    ? quota.QuotaCode === bandwidthQuotaCode
    : (quota.QuotaName ?? "").trim().toLowerCase() === bandwidthQuotaName.toLowerCase();
}

async function findInList(
  client: ServiceQuotasClient,
  list: "applied" | "default",
): Promise<{ quota: ServiceQuota; matchedBy: "code" | "name" } | null> {
  const all: ServiceQuota[] = [];
  const paginate = list === "applied" ? paginateListServiceQuotas : paginateListAWSDefaultServiceQuotas;
  for await (const page of paginate({ client }, { ServiceCode: bandwidthQuotaServiceCode }))
    all.push(...(page.Quotas ?? []));
  for (const by of ["code", "name"] as const) {
    const quota = all.find((candidate) => matches(candidate, by));
    if (quota) return { quota, matchedBy: by };
  }
  return null;
}

/** Reads the quota in force, its AWS default and the request history of one region. */
export async function getQuotaReport(client: ServiceQuotasClient, region: string): Promise<QuotaReport> {
  let applied: { quota: ServiceQuota; matchedBy: "code" | "name" } | null = null;
  try {
    const response = await client.send(
      new GetServiceQuotaCommand({ ServiceCode: bandwidthQuotaServiceCode, QuotaCode: bandwidthQuotaCode }),
    );
    if (response.Quota) applied = { quota: response.Quota, matchedBy: "code" };
  } catch (error) {
    if (!isNoSuchResource(error)) throw error;
  }
  if (!applied) applied = await findInList(client, "applied");

  let defaults: ServiceQuota | null = null;
  const code = applied?.quota.QuotaCode ?? bandwidthQuotaCode;
  try {
    const response = await client.send(
      new GetAWSDefaultServiceQuotaCommand({ ServiceCode: bandwidthQuotaServiceCode, QuotaCode: code }),
    );
    defaults = response.Quota ?? null;
  } catch (error) {
    if (!isNoSuchResource(error)) throw error;
  }
  let matchedBy = applied?.matchedBy ?? "code";
  if (!applied && !defaults) {
    const found = await findInList(client, "default");
    if (!found) throw new QuotaNotFoundError(region);
    defaults = found.quota;
    matchedBy = found.matchedBy;
  }
  const quota = (applied?.quota ?? defaults) as ServiceQuota;
  const quotaCode = quota.QuotaCode ?? bandwidthQuotaCode;
  return {
    region,
    quotaCode,
    quotaName: quota.QuotaName ?? bandwidthQuotaName,
    matchedBy,
    valueMbps: applied?.quota.Value ?? defaults?.Value ?? null,
    defaultMbps: defaults?.Value ?? null,
    unit: quota.Unit ?? null,
    adjustable: quota.Adjustable ?? null,
    requests: await listQuotaRequests(client, quotaCode),
  };
}

export async function listQuotaRequests(
  client: ServiceQuotasClient,
  quotaCode: string = bandwidthQuotaCode,
): Promise<QuotaRequestRecord[]> {
  const records: QuotaRequestRecord[] = [];
  const pages = paginateListRequestedServiceQuotaChangeHistoryByQuota(
    { client },
    { ServiceCode: bandwidthQuotaServiceCode, QuotaCode: quotaCode },
  );
  for await (const page of pages) records.push(...(page.RequestedQuotas ?? []).map(toRecord));
  return records.sort((a, b) => (b.created ?? "").localeCompare(a.created ?? ""));
}

function toRecord(change: RequestedServiceQuotaChange): QuotaRequestRecord {
  return {
    id: change.Id ?? "",
    caseId: change.CaseId ?? null,
    desiredMbps: change.DesiredValue ?? null,
    status: change.Status ?? "UNKNOWN",
    created: change.Created?.toISOString() ?? null,
    lastUpdated: change.LastUpdated?.toISOString() ?? null,
  };
}

export class QuotaRequestRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuotaRequestRefused";
  }
}

/**
 * Requests `desiredMbps` (already checked against the maximum) in one region, after checking
 * what is in force: refuses a value not above the current one, a non-adjustable quota, or a
 * second request while one is open. `request` is null when a dry run held the call back.
 */
export async function requestQuotaIncrease(
  client: ServiceQuotasClient,
  region: string,
  desiredMbps: number,
): Promise<{ report: QuotaReport; request: QuotaRequestRecord | null }> {
  const report = await getQuotaReport(client, region);
  if (report.adjustable === false)
    throw new QuotaRequestRefused(`${region}: quota ${report.quotaCode} is not adjustable in this account`);
  if (report.valueMbps !== null && desiredMbps <= report.valueMbps)
    throw new QuotaRequestRefused(
      `${region}: ${report.valueMbps} Mbit/s is already in force; request a value above it (up to 3000)`,
    );
  const open = report.requests.find((request) => openRequestStatuses.has(request.status));
  if (open)
    throw new QuotaRequestRefused(
      `${region}: request ${open.id} for ${open.desiredMbps} Mbit/s is still ${open.status}${open.caseId ? ` (support case ${open.caseId})` : ""}; wait for it to close`,
    );
  const response = await client.send(
    new RequestServiceQuotaIncreaseCommand({
      ServiceCode: bandwidthQuotaServiceCode,
      QuotaCode: report.quotaCode,
      DesiredValue: desiredMbps,
    }),
  );
  // no request back: a dry run held the call (AWS always returns one)
  return { report, request: response.RequestedQuota ? toRecord(response.RequestedQuota) : null };
}

/** What happens after a request, told to the user once. */
export const quotaRequestNextSteps =
  "AWS opens a support case for each request. Approval is not guaranteed and usually takes days " +
  "(the study's took about 2 days and one round of questions about the use case). Follow it with " +
  "`lambda-netbench quota history`; the new value applies to functions outside a VPC once the status is APPROVED.";
