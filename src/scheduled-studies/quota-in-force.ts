import { GetServiceQuotaCommand, type ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { errorName } from "../platforms/aws/backoff.js";
import { bandwidthQuotaCode, bandwidthQuotaServiceCode, getQuotaReport } from "../platforms/aws/quota.js";
import type { PlatformFacts } from "../results/platform-facts.js";

/**
 * The bandwidth quota in force when a scheduled run begins, recorded in that run's manifest as
 * `run` records it (facts.quotaBitsPerSecond, details.quota): quotas change between runs (a
 * request approved, a new default), and a history of bandwidth means little without the quota
 * each point ran under. The recorder reads it with one GetServiceQuota (its role may read only
 * this quota); reading it never fails the run.
 */
export interface ScheduledRunQuota {
  code: string;
  /** Value in force at the run's start, Mbit/s; null when it could not be read. */
  valueMbps: number | null;
  defaultMbps: number | null;
  /** Where valueMbps came from. */
  source: "GetServiceQuota" | "AWS default (never raised in this account)" | "unreadable";
  readAt: string;
  error?: string;
  /** What `schedule create` read, for comparison. */
  valueMbpsAtCreate: number | null;
}

interface CreateTimeQuota {
  code?: string;
  valueMbps?: number | null;
  defaultMbps?: number | null;
}

function createTimeQuota(facts: PlatformFacts): CreateTimeQuota {
  const quota = (facts.details as { quota?: CreateTimeQuota } | undefined)?.quota;
  return quota && typeof quota === "object" ? quota : {};
}

export async function readRunQuota(
  client: ServiceQuotasClient,
  atCreate: CreateTimeQuota,
  now: Date,
): Promise<ScheduledRunQuota> {
  const code = atCreate.code ?? bandwidthQuotaCode;
  const base = {
    code,
    defaultMbps: atCreate.defaultMbps ?? null,
    readAt: now.toISOString(),
    valueMbpsAtCreate: atCreate.valueMbps ?? null,
  };
  try {
    const response = await client.send(
      new GetServiceQuotaCommand({ ServiceCode: bandwidthQuotaServiceCode, QuotaCode: code }),
    );
    return { ...base, valueMbps: response.Quota?.Value ?? null, source: "GetServiceQuota" };
  } catch (error) {
    // Service Quotas has no applied value for a quota never changed in the account: the default is in force
    if (errorName(error) === "NoSuchResourceException" && base.defaultMbps !== null)
      return { ...base, valueMbps: base.defaultMbps, source: "AWS default (never raised in this account)" };
    return {
      ...base,
      valueMbps: null,
      source: "unreadable",
      error: `${errorName(error)}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** The manifest's AWS facts with the quota of this run. */
export async function withRunQuota(
  platforms: Record<string, PlatformFacts>,
  client: ServiceQuotasClient,
  now: Date,
): Promise<Record<string, PlatformFacts>> {
  const updated: Record<string, PlatformFacts> = {};
  for (const [key, facts] of Object.entries(platforms)) {
    if (facts.platform !== "aws") {
      updated[key] = facts;
      continue;
    }
    const quota = await readRunQuota(client, createTimeQuota(facts), now);
    updated[key] = {
      ...facts,
      quotaBitsPerSecond: quota.valueMbps === null ? null : quota.valueMbps * 1_000_000,
      details: { ...(facts.details ?? {}), quota },
    };
  }
  return updated;
}

/**
 * At `schedule create`: the quota as `run` records it (code, how it matched, value, default), so
 * each run's recorder knows the code to read and the default that applies when it was never raised.
 */
export async function quotaFactsAtCreate(
  client: ServiceQuotasClient,
  region: string,
): Promise<{ quotaBitsPerSecond: number | null; quota: Record<string, unknown> }> {
  try {
    const report = await getQuotaReport(client, region);
    return {
      quotaBitsPerSecond: report.valueMbps === null ? null : report.valueMbps * 1_000_000,
      quota: {
        code: report.quotaCode,
        matchedBy: report.matchedBy,
        valueMbps: report.valueMbps,
        defaultMbps: report.defaultMbps,
      },
    };
  } catch (error) {
    return {
      quotaBitsPerSecond: null,
      quota: { error: `${errorName(error)}: ${error instanceof Error ? error.message : String(error)}` },
    };
  }
}
