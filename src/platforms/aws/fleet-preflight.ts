import type { GetAccountSettingsCommandOutput } from "@aws-sdk/client-lambda";
import type { AwsClients } from "./aws-clients.js";
import { describeError, type PreflightItem, type PreflightRegion } from "./preflight-items.js";
import { missingVpcFunction } from "./vpc-cells.js";
import { describeVpcReachability } from "./vpc-reachability.js";

/**
 * The preflight items of the plan's `vpc` and `environments` axes (preflight-checks.ts adds them
 * to each region's list):
 * - `vpc`, for plans with `vpc: true` here: the stack has the VPC function, its state, and its
 *   subnets reach S3 and the iperf3 server (vpc-reachability.ts); one failed item per problem.
 * - `fleet`, for plans with fleets (`environments` above 1): the most invocations the run has at
 *   once against the account's unreserved concurrency, less a margin for its other functions.
 */

/** The preflight items this file adds for a region (listed as skipped when it cannot run). */
export function fleetCheckNames(target: { vpc?: boolean; largestFleet?: number }): Array<"vpc" | "fleet"> {
  return [
    ...(target.vpc ? (["vpc"] as const) : []),
    ...((target.largestFleet ?? 1) > 1 ? (["fleet"] as const) : []),
  ];
}

/**
 * At once, the runner has at most `parallelism` invocations, except that a fleet larger than
 * `parallelism` runs alone with all its members (src/runner/weighted-slots.ts).
 */
export function peakConcurrency(parallelism: number, largestFleet: number): number {
  return Math.max(parallelism, largestFleet);
}

/** Unreserved concurrency kept free for the account's other functions: a tenth, at least 1. */
export function concurrencyMargin(unreserved: number): number {
  return Math.max(1, Math.ceil(unreserved / 10));
}

export async function fleetPreflightItems(
  clients: Pick<AwsClients, "ec2" | "lambda">,
  target: PreflightRegion,
  outputs: Record<string, string> | null,
  parallelism: number,
  settings: Pick<GetAccountSettingsCommandOutput, "AccountLimit"> | null,
): Promise<PreflightItem[]> {
  const region = target.region;
  const items: PreflightItem[] = [];
  const item = (check: "vpc" | "fleet", status: PreflightItem["status"], detail: string) =>
    items.push({ check, region, status, detail });

  if (target.vpc) {
    if (outputs === null) item("vpc", "skipped", "needs the stack");
    else if (!outputs.VpcFunctionName) item("vpc", "failed", missingVpcFunction(region));
    else {
      try {
        const report = await describeVpcReachability(clients, outputs, region, target.needsServer);
        for (const problem of report.problems) item("vpc", "failed", problem);
        if (report.problems.length === 0)
          item(
            "vpc",
            "ok",
            `${outputs.VpcFunctionName} (${report.state ?? "state unknown"}) in ${outputs.VpcId}: ${report.notes.join("; ")}`,
          );
      } catch (error) {
        item(
          "vpc",
          "failed",
          `ec2/lambda (VPC function ${outputs.VpcFunctionName}): ${describeError(error)}`,
        );
      }
    }
  }

  const largest = target.largestFleet ?? 1;
  if (largest > 1) {
    const unreserved = settings?.AccountLimit?.UnreservedConcurrentExecutions;
    if (unreserved === undefined) item("fleet", "skipped", "needs the account's unreserved concurrency");
    else {
      const peak = peakConcurrency(parallelism, largest);
      const margin = concurrencyMargin(unreserved);
      const detail = `up to ${peak} invocations at once (parallelism ${parallelism}, largest fleet ${largest}); unreserved concurrency ${unreserved}, of which ${margin} kept for the account's other functions`;
      if (peak > unreserved - margin)
        item(
          "fleet",
          "failed",
          `${detail}: lower \`environments\`/\`parallelism\` in the plan to at most ${Math.max(0, unreserved - margin)}, or request more concurrency (Service Quotas, Lambda "Concurrent executions")`,
        );
      else item("fleet", "ok", detail);
    }
  }
  return items;
}
