import { expandPlan } from "../plan/expand-plan.js";
import { type Plan, type ProbeSpec, usesIperf3Server } from "../plan/plan-schema.js";
import { targetKey, targetsOn } from "../plan/platforms.js";
import { plannedProbe } from "../probes/registry.js";
import { type CostEstimate, estimateCost } from "../results/cost-estimate.js";
import type { SourcedPrice } from "../results/price-table.js";
import { defaultParallelism } from "./parallelism.js";

/**
 * What a plan will cost and how long it will take on AWS, before anything runs: per region, the
 * invocations (warm-ups included), Lambda GB-seconds, the run's wall time at the plan's
 * parallelism, and the server's hours, public IPv4 and iperf3 traffic over that time. Rough upper
 * estimates: transfers are timed at the default 625 Mbit/s quota. Pure.
 */
export interface RegionEstimate {
  region: string;
  invocations: number;
  durationSeconds: number;
  needsServer: boolean;
  cost: CostEstimate;
}

export interface PlanEstimate {
  invocations: number;
  gigabyteSeconds: number;
  /** Wall time of the AWS part of the run (regions run one after another). */
  durationSeconds: number;
  /** Sum of the priced items; a lower bound when `missing` is not empty. */
  knownUsd: number;
  missing: string[];
  regions: RegionEstimate[];
}

/** Bytes per second at the default quota (625 Mbit/s): transfers take at least this long. */
const defaultQuotaBytesPerSecond = 625e6 / 8;
/** `deploy --with-server`'s default --ttl-hours: the server runs that long, however short the run. */
export const defaultServerTtlHours = 3;

/** `deploy --with-server`'s default --instance-type, which the estimate prices. */
export const defaultServerInstanceType = "c8gn.large";

/** Publishing versions and creating test objects before the first invocation (per region). */
const preparationSeconds = 120;

export interface PlanEstimateOptions {
  serverInstanceType?: string;
  /** The command line's server price: wins over every other. */
  serverUsdPerHour?: number;
  serverTtlHours?: number;
  /** Per region, the server's price looked up where the table lacks it (with its source, or why none). */
  serverListedPrices?: ReadonlyMap<string, SourcedPrice>;
}

export function estimatePlan(plan: Plan, options: PlanEstimateOptions = {}): PlanEstimate {
  const cells = expandPlan(plan);
  const regions: RegionEstimate[] = [];
  for (const target of targetsOn(plan.targets, "aws")) {
    const mine = cells.filter((cell) => targetKey(cell.target) === targetKey(target));
    const lambda: Parameters<typeof estimateCost>[0]["lambda"] = [];
    let invocationSeconds = 0;
    let serverTransferBytes = 0;
    let invocations = 0;
    /** Variant -> warm-ups: the runner warms as many environments as the variant's largest fleet. */
    const variants = new Map<string, number>();
    for (const cell of mine) {
      const seconds = estimatedSeconds(cell.probe);
      lambda.push({
        memoryMb: cell.memoryMb,
        arch: cell.arch,
        billedSeconds: seconds,
        invocations: cell.repetitions * (cell.environments ?? 1),
      });
      // a fleet of N makes N invocations per repetition
      const count = cell.repetitions * (cell.environments ?? 1);
      invocations += count;
      invocationSeconds += seconds * count;
      serverTransferBytes += iperf3Bytes(cell.probe) * count;
      // warm-ups per variant the runner prepares (memory, architecture, VPC or not): its largest fleet
      const variant = `${cell.memoryMb}/${cell.arch}/${cell.vpc ?? false}`;
      variants.set(variant, Math.max(variants.get(variant) ?? 0, cell.environments ?? 1));
    }
    if (plan.warmup)
      for (const [variant, warmups] of variants) {
        const [memoryMb, arch] = variant.split("/") as [string, "arm64" | "x86_64"];
        lambda.push({ memoryMb: Number(memoryMb), arch, billedSeconds: 1, invocations: warmups });
        invocations += warmups;
        invocationSeconds += warmups;
      }
    const parallelism = planParallelism(plan) ?? defaultParallelism(target);
    const durationSeconds = preparationSeconds + invocationSeconds / Math.max(1, parallelism);
    const needsServer = mine.some((cell) => usesIperf3Server(cell.probe));
    const listedPrice = options.serverListedPrices?.get(target.region);
    const cost = estimateCost({
      region: target.region,
      lambda,
      server: needsServer
        ? {
            instanceType: options.serverInstanceType ?? defaultServerInstanceType,
            // the server terminates itself at its time-to-live, not when the run ends
            hours: Math.max(durationSeconds / 3600, options.serverTtlHours ?? defaultServerTtlHours),
            ...(options.serverUsdPerHour !== undefined
              ? { usdPerHourOverride: options.serverUsdPerHour }
              : {}),
            ...(listedPrice ? { listedPrice } : {}),
          }
        : null,
      serverTransferBytes,
    });
    regions.push({ region: target.region, invocations, durationSeconds, needsServer, cost });
  }
  return {
    invocations: regions.reduce((sum, r) => sum + r.invocations, 0),
    gigabyteSeconds: regions.reduce((sum, r) => sum + r.cost.lambdaGbSeconds, 0),
    durationSeconds: regions.reduce((sum, r) => sum + r.durationSeconds, 0),
    knownUsd: regions.reduce((sum, r) => sum + r.cost.knownUsd, 0),
    missing: [...new Set(regions.flatMap((r) => r.cost.missing))],
    regions,
  };
}

/** The plan's parallelism as one number (the largest, when a plan lists several). */
export function planParallelism(plan: Plan): number | undefined {
  const value: unknown = plan.parallelism;
  if (typeof value === "number") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "number")) return Math.max(...value);
  return undefined;
}

/** The run-time confirmation's figures (kept for run.ts's prompt). */
export function estimateAwsCost(plan: Plan): { invocations: number; gigabyteSeconds: number; usd: number } {
  const estimate = estimatePlan(plan);
  return {
    invocations: estimate.invocations,
    gigabyteSeconds: estimate.gigabyteSeconds,
    usd: estimate.knownUsd,
  };
}

function estimatedSeconds(probe: ProbeSpec): number {
  return plannedProbe(probe).estimate(probe, defaultQuotaBytesPerSecond).seconds;
}

function iperf3Bytes(probe: ProbeSpec): number {
  return plannedProbe(probe).estimate(probe, defaultQuotaBytesPerSecond).serverBytes;
}
