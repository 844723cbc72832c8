import type { Architecture } from "../../plan/architecture.js";
import { isLambdaMemoryMb, MEMORY_MB_RANGE } from "../../plan/lambda-memory.js";
import { AwsInputError } from "./aws-input-error.js";
import { commercialRegions } from "./commercial-regions.js";

// Checks of what the user typed, before any AWS call: each error names the field and what is
// allowed, so nothing is spent on a request that could never succeed.

export { AwsInputError } from "./aws-input-error.js";

/** Highest value AWS accepts for the bandwidth quota (announcement of 2026-08-06), Mbit/s. */
export const maxBandwidthQuotaMbps = 3_000;

export function validateRegion(region: string, field = "region"): string {
  const trimmed = region.trim();
  if ((commercialRegions as readonly string[]).includes(trimmed)) return trimmed;
  throw new AwsInputError(
    field,
    `unknown region "${region}" (allowed: the commercial regions ${commercialRegions.join(", ")})`,
  );
}

/** `--regions a,b` (comma-separated) or `--all-regions`; exactly one of them. */
export function validateRegions(options: { regions?: string | string[]; allRegions?: boolean }): string[] {
  const given =
    options.regions === undefined
      ? []
      : (Array.isArray(options.regions) ? options.regions : [options.regions])
          .flatMap((value) => value.split(","))
          .map((value) => value.trim())
          .filter((value) => value.length > 0);
  if (options.allRegions && given.length > 0)
    throw new AwsInputError("regions", "give --regions or --all-regions, not both");
  if (options.allRegions) return [...commercialRegions];
  if (given.length === 0)
    throw new AwsInputError("regions", "give --regions R1,R2 or --all-regions (e.g. --regions us-west-2)");
  return [...new Set(given.map((region) => validateRegion(region, "regions")))];
}

export function validateMemoryMb(memoryMb: number, field = "memoryMb"): number {
  if (!isLambdaMemoryMb(memoryMb))
    throw new AwsInputError(field, `${memoryMb} is not allowed (allowed: ${MEMORY_MB_RANGE})`);
  return memoryMb;
}

export function validateArchitecture(arch: string, field = "arch"): Architecture {
  if (arch === "arm64" || arch === "x86_64") return arch;
  throw new AwsInputError(field, `"${arch}" is not allowed (allowed: arm64, x86_64)`);
}

/** A bandwidth quota value to request, Mbit/s. */
export function validateQuotaValue(value: string | number, field = "value"): number {
  const mbps = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(mbps) || mbps <= 0)
    throw new AwsInputError(
      field,
      `"${value}" is not a number of Mbit/s (allowed: above 0, up to ${maxBandwidthQuotaMbps})`,
    );
  if (mbps > maxBandwidthQuotaMbps)
    throw new AwsInputError(
      field,
      `${mbps} Mbit/s is above the maximum AWS grants for this quota (allowed: up to ${maxBandwidthQuotaMbps} Mbit/s)`,
    );
  return mbps;
}

/** A positive number option (hours, seconds, counts), with its bounds. */
export function validateNumberInRange(
  value: string | number,
  field: string,
  min: number,
  max: number,
  integer = false,
): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
    throw new AwsInputError(
      field,
      `"${value}" is not allowed (allowed: ${integer ? "whole numbers" : "numbers"} from ${min} to ${max})`,
    );
  return n;
}

/** EC2 instance type such as c8gn.large; the family letters before the size. */
export function validateInstanceType(instanceType: string, field = "instanceType"): string {
  if (/^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(instanceType)) return instanceType;
  throw new AwsInputError(field, `"${instanceType}" is not an EC2 instance type (e.g. c8gn.large)`);
}

/** An EC2 resource id such as subnet-0123abcd or vpc-0123abcd. */
export function validateResourceId(value: string, field: string, prefix: "subnet" | "vpc"): string {
  const trimmed = value.trim();
  if (new RegExp(`^${prefix}-[0-9a-f]{8,17}$`).test(trimmed)) return trimmed;
  throw new AwsInputError(field, `"${value}" is not a ${prefix} id (e.g. ${prefix}-0123456789abcdef0)`);
}
