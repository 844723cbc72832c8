import { expandPlan } from "../plan/expand-plan.js";
import type { Plan } from "../plan/plan-schema.js";
import { targetKey } from "../plan/platforms.js";

/** What a region's preflight checks for the plan's `vpc` and `environments` axes: VPC cells there, and the largest fleet. */
export function fleetNeeds(plan: Plan, region: string): { vpc: boolean; largestFleet: number } {
  const key = targetKey({ platform: "aws", region });
  const cells = expandPlan(plan).filter((cell) => targetKey(cell.target) === key);
  return {
    vpc: cells.some((cell) => cell.vpc === true),
    largestFleet: Math.max(1, ...cells.map((cell) => cell.environments ?? 1)),
  };
}
