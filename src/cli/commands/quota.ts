import type { Command } from "commander";
import { AwsInputError, validateQuotaValue, validateRegions } from "../../platforms/aws/aws-input.js";
import type { QuotaReport } from "../../platforms/aws/quota.js";
import { textTable } from "../../report/tables.js";
import { commandRegion, withAwsRegion, withProfile } from "./aws-options.js";
import { type AwsCommandDeps, openAwsSession } from "./aws-session.js";

interface QuotaOptions {
  region?: string;
  profile?: string;
  regions?: string;
  allRegions?: boolean;
  value?: string;
  json?: boolean;
  dryRun?: boolean;
}

/** `lambda-netbench quota get|request|history`: the Lambda network bandwidth quota per region. */
export function registerQuotaCommand(program: Command, deps: AwsCommandDeps = {}): void {
  const quota = program
    .command("quota")
    .description("the Lambda network bandwidth quota (L-14320ECE, Mbit/s) per region");
  const withRegions = (command: Command) =>
    withAwsRegion(command, "one AWS region, e.g. us-west-2")
      .option(
        "--regions <list>",
        "comma-separated regions, e.g. us-west-2,ap-northeast-1 (default: AWS_REGION, AWS_DEFAULT_REGION, then the profile's region)",
      )
      .option("--all-regions", "every commercial region")
      .option("--json", "print JSON");

  withRegions(quota.command("get").description("value in force, AWS default, open and past requests")).action(
    async (options: QuotaOptions) => {
      const requested = await requestedRegions(options);
      const { getQuotaReport } = await import("../../platforms/aws/quota.js");
      const session = await openAwsSession(false, withProfile(deps, options.profile));
      const regions = await usableRegions(session, requested, options.allRegions === true);
      const reports: (QuotaReport | { region: string; error: string })[] = [];
      for (const region of regions) {
        const clients = session.clientsFor(region);
        try {
          reports.push(await getQuotaReport(clients.quotas, region));
        } catch (error) {
          reports.push({ region, error: (error as Error).message });
          process.exitCode = 1;
        } finally {
          session.release(clients);
        }
      }
      if (options.json) console.log(JSON.stringify(reports, null, 2));
      else console.log(formatQuotaTable(reports));
    },
  );

  withRegions(
    quota.command("history").description("past and open increase requests with status and case id"),
  ).action(async (options: QuotaOptions) => {
    const requested = await requestedRegions(options);
    const { listQuotaRequests } = await import("../../platforms/aws/quota.js");
    const session = await openAwsSession(false, withProfile(deps, options.profile));
    const regions = await usableRegions(session, requested, options.allRegions === true);
    const rows: Record<string, unknown>[] = [];
    for (const region of regions) {
      const clients = session.clientsFor(region);
      try {
        for (const request of await listQuotaRequests(clients.quotas)) rows.push({ region, ...request });
      } finally {
        session.release(clients);
      }
    }
    if (options.json) console.log(JSON.stringify(rows, null, 2));
    else
      console.log(
        table(
          ["region", "request id", "case id", "desired (Mbit/s)", "status", "created", "last updated"],
          rows.map((r) => [
            r.region,
            r.id,
            r.caseId ?? "-",
            r.desiredMbps ?? "-",
            r.status,
            r.created ?? "-",
            r.lastUpdated ?? "-",
          ]),
        ) || "no requests",
      );
  });

  withRegions(
    quota
      .command("request")
      .description(
        "ask AWS for a higher value (opens a support case; approval takes days and is not guaranteed)",
      )
      .requiredOption("--value <mbps>", "the value wanted, Mbit/s (up to 3000)")
      .option("--dry-run", "check and print the call without making it"),
  ).action(async (options: QuotaOptions) => {
    const value = validateQuotaValue(options.value ?? "");
    const requested = await requestedRegions(options);
    const { requestQuotaIncrease, quotaRequestNextSteps } = await import("../../platforms/aws/quota.js");
    const session = await openAwsSession(options.dryRun === true, withProfile(deps, options.profile));
    const regions = await usableRegions(session, requested, options.allRegions === true);
    const results: Record<string, unknown>[] = [];
    for (const region of regions) {
      const clients = session.clientsFor(region);
      try {
        const { request, report } = await requestQuotaIncrease(clients.quotas, region, value);
        results.push({ region, inForceMbps: report.valueMbps, request });
        if (!options.json && request)
          console.log(
            `${region}: requested ${value} Mbit/s (in force: ${report.valueMbps}): request ${request.id}, status ${request.status}${request.caseId ? `, case ${request.caseId}` : ""}`,
          );
      } catch (error) {
        results.push({ region, error: (error as Error).message });
        console.error(`lambda-netbench: ${(error as Error).message}`);
        process.exitCode = 1;
      } finally {
        session.release(clients);
      }
    }
    if (options.json) console.log(JSON.stringify(results, null, 2));
    session.printPlan();
    if (!options.dryRun) console.log(quotaRequestNextSteps);
  });
}

function formatQuotaTable(reports: (QuotaReport | { region: string; error: string })[]): string {
  return table(
    ["region", "in force (Mbit/s)", "AWS default (Mbit/s)", "matched by", "open requests", "last request"],
    reports.map((report) => {
      if ("error" in report) return [report.region, "error", "-", "-", "-", report.error];
      const open = report.requests.filter((r) => r.status === "PENDING" || r.status === "CASE_OPENED");
      const last = report.requests[0];
      return [
        report.region,
        report.valueMbps ?? "-",
        report.defaultMbps ?? "-",
        report.matchedBy === "code" ? `code ${report.quotaCode}` : `name (code ${report.quotaCode})`,
        open.map((r) => `${r.desiredMbps} ${r.status}${r.caseId ? ` case ${r.caseId}` : ""}`).join(", ") ||
          "none",
        last ? `${last.desiredMbps} ${last.status} ${last.created?.slice(0, 10) ?? ""}` : "none",
      ];
    }),
  );
}

/** A plain aligned text table (report/tables.ts), without a rule; empty without rows. */
export function table(headers: string[], rows: unknown[][]): string {
  if (rows.length === 0) return "";
  return textTable(
    headers,
    rows.map((row) => row.map((cell) => String(cell))),
    { rule: false },
  ).join("\n");
}

/** `--all-regions`: only the regions enabled for this account (opt-in regions not turned on are skipped, and said so). */
async function usableRegions(
  session: Awaited<ReturnType<typeof openAwsSession>>,
  regions: string[],
  allRegions: boolean,
): Promise<string[]> {
  if (!allRegions) return regions;
  const { splitEnabledRegions } = await import("../../platforms/aws/enabled-regions.js");
  const clients = session.clientsFor("us-east-1");
  try {
    const { enabled, notEnabled } = await splitEnabledRegions(clients.ec2, regions);
    if (notEnabled.length > 0)
      console.error(`skipping opt-in regions not enabled in this account: ${notEnabled.join(", ")}`);
    return enabled;
  } finally {
    session.release(clients);
  }
}

/** `--region`, `--regions` or `--all-regions` (one of them); none: the default region (AWS_REGION, ..., the profile's). */
async function requestedRegions(options: QuotaOptions): Promise<string[]> {
  const given = [
    options.region !== undefined && "--region",
    options.regions !== undefined && "--regions",
    options.allRegions === true && "--all-regions",
  ].filter((flag): flag is string => typeof flag === "string");
  if (given.length > 1)
    throw new AwsInputError("region", `${given.join(" and ")} were both given: pass one of them`);
  if (options.regions === undefined && !options.allRegions)
    return [await commandRegion(options.region, options.profile)];
  return validateRegions(options);
}
