import { expandPlan } from "../../plan/expand-plan.js";
import type { Plan } from "../../plan/plan-schema.js";
import { targetKey, targetName } from "../../plan/platforms.js";
import { formatCostEstimate } from "../../report/cost-text.js";
import { outputWidth, wrapEach } from "../../report/text-layout.js";
import { defaultParallelism } from "../../runner/parallelism.js";
import {
  estimatePlan,
  type PlanEstimate,
  type PlanEstimateOptions,
  planParallelism,
} from "../../runner/run-estimate.js";
import { fleetNeeds } from "../fleet-needs.js";
import type { AwsCommandDeps } from "./aws-session.js";

/**
 * `run`'s checks before it invokes anything on AWS, and all that `run --dry-run` does: the plan
 * with its invocation count and duration, the cost (Lambda, server, IPv4, transfer), and the
 * account preflight (src/platforms/aws/preflight.ts). Returns the exit code to use when it fails.
 */
export interface PreflightOutcome {
  ok: boolean;
  estimate: PlanEstimate;
}

export async function checkBeforeRun(
  plan: Plan,
  options: {
    dryRun: boolean;
    aws: AwsCommandDeps;
    write?: (text: string) => void;
    /** Columns the text is laid out for (default: the terminal's). */
    width?: number;
    serverUsdPerHour?: number;
  },
): Promise<PreflightOutcome> {
  const write = options.write ?? ((text: string) => console.log(text));
  const width = options.width ?? outputWidth();
  const estimateOptions: PlanEstimateOptions =
    options.serverUsdPerHour !== undefined ? { serverUsdPerHour: options.serverUsdPerHour } : {};
  // the durations need nothing from the account; the prices need what the preflight reads
  const timed = estimatePlan(plan, estimateOptions);
  const preflight =
    timed.regions.length > 0 ? await preflightAccount(plan, timed, { ...options, write }) : null;
  const regionFacts = new Map((preflight?.facts ?? []).map((facts) => [facts.region, facts]));
  const estimate = await estimateWithServerPrices(plan, { ...estimateOptions, regionFacts }, options.aws);
  write(describePlan(plan, estimate, width));
  for (const region of estimate.regions) write(formatCostEstimate(region.cost, width));
  if (estimate.regions.length > 1)
    write(
      `Total (${estimate.regions.length} regions): ${estimate.missing.length > 0 ? "at least " : ""}$${estimate.knownUsd.toFixed(2)}`,
    );
  if (preflight === null) {
    if (options.dryRun) write("Dry run: no AWS target, nothing to check in an account.");
    return { ok: true, estimate };
  }
  const { formatPreflight } = await import("../../platforms/aws/preflight.js");
  write(formatPreflight(preflight, width));
  if (options.dryRun) write("Dry run: nothing was invoked or created.");
  return { ok: preflight.ok, estimate };
}

/** The account preflight of the plan's AWS regions (src/platforms/aws/preflight.ts). */
async function preflightAccount(
  plan: Plan,
  estimate: PlanEstimate,
  { aws, dryRun, write }: { aws: AwsCommandDeps; dryRun: boolean; write: (text: string) => void },
): Promise<import("../../platforms/aws/preflight-items.js").PreflightResult> {
  // loaded only for AWS plans: the SDK costs start-up time
  const [{ runPreflight }, { buildAgentZip }] = await Promise.all([
    import("../../platforms/aws/preflight.js"),
    import("../../platforms/aws/agent-zip.js"),
  ]);
  const expectedAgentCodeKey = () => {
    try {
      return buildAgentZip().key;
    } catch {
      write("note: no agent bundle here (npm run build): the stack's agent version is not compared");
      return null;
    }
  };
  let startsInSeconds = 0;
  const cells = expandPlan(plan);
  return runPreflight({
    regions: estimate.regions.map((region) => {
      const entry = {
        region: region.region,
        needsServer: region.needsServer,
        durationSeconds: region.durationSeconds,
        startsInSeconds,
        // the account may refuse sizes above 3,008 MB: found before the first invocation
        largestMemoryMb: Math.max(...plan.memoryMb),
        ...fleetNeeds(plan, region.region),
        // a --vpc-only stack has no function for these
        outsideVpc: cells.some(
          (cell) =>
            targetKey(cell.target) === targetKey({ platform: "aws", region: region.region }) &&
            cell.vpc !== true,
        ),
      };
      startsInSeconds += region.durationSeconds;
      return entry;
    }),
    parallelism: planParallelism(plan) ?? defaultParallelism(plan.targets[0] as Plan["targets"][number]),
    expectedAgentCodeKey,
    // a real run's preflight may ask the agent function whether it reaches the server
    dryRun,
    credentials: aws.credentials,
    requestHandler: aws.requestHandler,
    ...(aws.profile ? { profile: aws.profile } : {}),
  });
}

/**
 * The plan's estimate, with the server's price asked of AWS's Price List API in each region
 * where the table lacks it (and no price was given): the estimate itself stays pure.
 */
async function estimateWithServerPrices(
  plan: Plan,
  options: PlanEstimateOptions,
  aws: AwsCommandDeps,
): Promise<PlanEstimate> {
  const estimate = estimatePlan(plan, options);
  const unpriced = estimate.regions.filter((region) => region.cost.missing.includes("ec2-server"));
  if (unpriced.length === 0) return estimate;
  const { lookUpServerPrices } = await import("../../platforms/aws/server-price.js");
  const serverListedPrices = await lookUpServerPrices(
    unpriced.map((region) => ({ region: region.region, instanceType: region.basis.serverInstanceType })),
    {
      ...(aws.credentials ? { credentials: aws.credentials } : {}),
      ...(aws.profile ? { profile: aws.profile } : {}),
      ...(aws.requestHandler ? { requestHandler: aws.requestHandler } : {}),
    },
  );
  return estimatePlan(plan, { ...options, serverListedPrices });
}

export function describePlan(plan: Plan, estimate: PlanEstimate, width = 100): string {
  const cells = expandPlan(plan);
  const lines = [
    `Plan ${plan.name}: ${cells.length} cells on ${plan.targets.map(targetName).join(", ")} ` +
      `(${plan.memoryMb.length} memory sizes x ${plan.architectures.join("/")} x ${plan.probes.length} probes, ${plan.repetitions} repetitions${plan.warmup ? ", warm-up" : ""})`,
  ];
  for (const region of estimate.regions) {
    lines.push(
      `  ${region.region}: ${region.invocations} invocations, about ${formatMinutes(region.durationSeconds)}` +
        `${region.needsServer ? ", needs the iperf3 server" : ""}`,
    );
    if (region.needsServer) lines.push(`    ${describeBasis(region)}`);
  }
  if (estimate.regions.length > 0)
    lines.push(
      `  on AWS: ${estimate.invocations} invocations in all, about ${formatMinutes(estimate.durationSeconds)} at parallelism ${planParallelism(plan) ?? 1}`,
    );
  lines.push(...burstWarningLines(estimate.burstWarnings));
  return wrapEach(lines, width).join("\n");
}

/** What the region's server and iperf3 traffic are priced at, and where that came from. */
function describeBasis(region: PlanEstimate["regions"][number]): string {
  const { basis, cost } = region;
  const server = basis.serverDeployed
    ? `priced: the deployed server (${basis.serverInstanceType}) for the run's ${cost.serverHours.toFixed(2)} hours`
    : `priced: a server to deploy (${basis.serverInstanceType}, deploy's default) for its ${cost.serverHours.toFixed(2)}-hour time-to-live`;
  const traffic = basis.quotaRead
    ? `iperf3 traffic at the ${basis.trafficMbps} Mbit/s quota in force`
    : `iperf3 traffic at the default ${basis.trafficMbps} Mbit/s quota (the quota in force was not read)`;
  return `${server}; ${traffic}`;
}

/** The cells that cannot reach their sustained rate, said before anything runs (the same lines for a lab run). */
export function burstWarningLines(warnings: readonly string[]): string[] {
  return warnings.map((warning) => `warning: no sustained rate to expect: ${warning}`);
}

function formatMinutes(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes >= 120 ? `${(minutes / 60).toFixed(1)} h` : `${minutes} min`;
}
