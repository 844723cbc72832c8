import { plannedInvocations } from "../plan/cell.js";
import { expandPlan } from "../plan/expand-plan.js";
import { type Plan, type ProbeSpec, usesIperf3Server } from "../plan/plan-schema.js";
import { targetKey, targetsOn } from "../plan/platforms.js";
import { plannedProbe } from "../probes/registry.js";
import { type CostEstimate, estimateCost } from "../results/cost-estimate.js";
import type { SourcedPrice } from "../results/price-table.js";
import { planBurstWarnings } from "./burst-reach.js";
import { defaultParallelism } from "./parallelism.js";

/**
 * What a plan will cost and how long it will take on AWS, before anything runs: per region, the
 * invocations (warm-ups included), Lambda GB-seconds, the run's wall time at the plan's
 * parallelism, and the server's hours, public IPv4 and iperf3 traffic over that time. Rough upper
 * estimates: transfers are timed at the default 625 Mbit/s quota (the slowest a run goes), and
 * iperf3 traffic is sized at the quota in force (the most a timed test moves). What the account
 * holds (the server deployed, the quota) comes in as `regionFacts`, read at the edge. With
 * them, on every target (the lab's too), the cells whose transfer is too short to pass the burst
 * (burst-reach.ts). Pure.
 */
export interface RegionEstimate {
  region: string;
  invocations: number;
  durationSeconds: number;
  needsServer: boolean;
  cost: CostEstimate;
  /** What the estimate priced the server and the traffic at, and whether the account said so. */
  basis: EstimateBasis;
}

/** What the account holds in one region, as the preflight read it (null: not read or none). */
export interface RegionFacts {
  /** The instance type of the iperf3 server the stack runs now (before its time-to-live); null: none. */
  serverInstanceType: string | null;
  /** The Lambda bandwidth quota in force, Mbit/s; null: not read. */
  quotaMbps: number | null;
}

export interface EstimateBasis {
  serverInstanceType: string;
  /** True: the stack's running server (priced for the run's hours); false: deploy's default for its time-to-live. */
  serverDeployed: boolean;
  /** The rate iperf3 traffic is sized at, Mbit/s. */
  trafficMbps: number;
  /** True: the quota in force read from the account; false: the default quota, assumed. */
  quotaRead: boolean;
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
  /** Cells whose transfer cannot pass its burst at the rate it can reach (burst-reach.ts), one line each. */
  burstWarnings: string[];
}

/** The default bandwidth quota, Mbit/s: transfers take at least as long as at this rate. */
const defaultQuotaMbps = 625;
const bytesPerSecondAt = (mbps: number) => (mbps * 1e6) / 8;
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
  /** Per region, what the account holds (the preflight's reads); a region without them gets the defaults. */
  regionFacts?: ReadonlyMap<string, RegionFacts>;
}

/** The server and the traffic rate the estimate prices in one region. Pure. */
export function estimateBasis(facts: RegionFacts | undefined, options: PlanEstimateOptions): EstimateBasis {
  const deployed = facts?.serverInstanceType ?? null;
  const quotaMbps = facts?.quotaMbps ?? null;
  return {
    serverInstanceType: deployed ?? options.serverInstanceType ?? defaultServerInstanceType,
    serverDeployed: deployed !== null,
    trafficMbps: quotaMbps ?? defaultQuotaMbps,
    quotaRead: quotaMbps !== null,
  };
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
    const basis = estimateBasis(options.regionFacts?.get(target.region), options);
    /** Variant -> warm-ups: the runner warms as many environments as the variant's largest fleet. */
    const variants = new Map<string, number>();
    for (const cell of mine) {
      const seconds = estimatedSeconds(cell.probe);
      lambda.push({
        memoryMb: cell.memoryMb,
        arch: cell.arch,
        billedSeconds: seconds,
        invocations: plannedInvocations(cell),
      });
      const count = plannedInvocations(cell);
      invocations += count;
      invocationSeconds += seconds * count;
      serverTransferBytes += iperf3Bytes(cell.probe, basis.trafficMbps) * count;
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
            instanceType: basis.serverInstanceType,
            // a running server's time-to-live was paid for by its deploy: the run adds its own
            // hours; a server still to deploy lives its time-to-live, not until the run ends
            hours: basis.serverDeployed
              ? durationSeconds / 3600
              : Math.max(durationSeconds / 3600, options.serverTtlHours ?? defaultServerTtlHours),
            ...(options.serverUsdPerHour !== undefined
              ? { usdPerHourOverride: options.serverUsdPerHour }
              : {}),
            ...(listedPrice ? { listedPrice } : {}),
          }
        : null,
      serverTransferBytes,
    });
    regions.push({ region: target.region, invocations, durationSeconds, needsServer, cost, basis });
  }
  return {
    invocations: regions.reduce((sum, r) => sum + r.invocations, 0),
    gigabyteSeconds: regions.reduce((sum, r) => sum + r.cost.lambdaGbSeconds, 0),
    durationSeconds: regions.reduce((sum, r) => sum + r.durationSeconds, 0),
    knownUsd: regions.reduce((sum, r) => sum + r.cost.knownUsd, 0),
    missing: [...new Set(regions.flatMap((r) => r.cost.missing))],
    regions,
    burstWarnings: planBurstWarnings(plan, quotasRead(options.regionFacts)),
  };
}

/** The quotas the preflight read, bit/s per region (a region without one gets the default). */
function quotasRead(facts: PlanEstimateOptions["regionFacts"]): Map<string, number> {
  const quotas = new Map<string, number>();
  for (const [region, fact] of facts ?? [])
    if (fact.quotaMbps !== null) quotas.set(region, fact.quotaMbps * 1e6);
  return quotas;
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

/**
 * What every invocation takes besides its probe, seconds: the agent's start, its clients' set-up
 * and its hand-back of the record (an upper figure: a warm agent takes well under it).
 */
const INVOCATION_OVERHEAD_SECONDS = 2;

function estimatedSeconds(probe: ProbeSpec): number {
  return (
    plannedProbe(probe).estimate(probe, bytesPerSecondAt(defaultQuotaMbps)).seconds +
    INVOCATION_OVERHEAD_SECONDS
  );
}

function iperf3Bytes(probe: ProbeSpec, trafficMbps: number): number {
  return plannedProbe(probe).estimate(probe, bytesPerSecondAt(trafficMbps)).serverBytes;
}
