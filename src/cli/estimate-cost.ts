import { expandPlan } from "../plan/expand-plan.js";
import type { Plan } from "../plan/plan-schema.js";
import { lambdaPrice } from "../results/price-table.js";

/**
 * A rough upper estimate of what a plan costs in Lambda time, shown before anything runs on AWS:
 * iperf3 for its duration plus setup, S3 transfers at the default 625 Mbit/s quota.
 */
export function estimateAwsCost(plan: Plan): { invocations: number; gigabyteSeconds: number; usd: number } {
  let invocations = 0;
  let gigabyteSeconds = 0;
  let usd = 0;
  for (const cell of expandPlan(plan)) {
    const seconds = estimatedSeconds(cell.probe);
    const count = cell.repetitions * (cell.environments ?? 1) + (plan.warmup ? 1 / plan.probes.length : 0);
    const gbs = (cell.memoryMb / 1024) * seconds * count;
    invocations += count;
    gigabyteSeconds += gbs;
    const region = cell.target.platform === "aws" ? cell.target.region : "us-east-1";
    const price = lambdaPrice("aws", region, cell.arch) ?? lambdaPrice("aws", "us-east-1", cell.arch);
    if (price) usd += gbs * price.gigabyteSecondUsd + count * price.requestUsd;
  }
  return { invocations: Math.ceil(invocations), gigabyteSeconds, usd };
}

function estimatedSeconds(probe: Plan["probes"][number]): number {
  const quotaBytesPerSecond = 625e6 / 8;
  switch (probe.kind) {
    case "iperf3":
      return probe.timeSeconds + probe.omitSeconds + 2;
    case "s3-get":
      return (probe.objectMib * 1_048_576) / quotaBytesPerSecond + 2;
    case "s3-put":
      return (probe.sizeMib * 1_048_576) / quotaBytesPerSecond + 2;
    case "info":
      return 1;
  }
}
