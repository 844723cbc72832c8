import { expandPlan } from "../plan/expand-plan.js";
import type { Plan } from "../plan/plan-schema.js";

/** What a region's preflight checks for the plan's `vpc` and `environments` axes: VPC cells there, and the largest fleet. */
export function fleetNeeds(plan: Plan, region: string): { vpc: boolean; largestFleet: number } {
  const cells = expandPlan(plan).filter(
    (cell) => cell.target.platform === "aws" && cell.target.region === region,
  );
  return {
    vpc: cells.some((cell) => cell.vpc === true),
    largestFleet: Math.max(1, ...cells.map((cell) => cell.environments ?? 1)),
  };
}
