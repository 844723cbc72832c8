import type { Architecture } from "../platform.js";

/**
 * Prices used by the cost estimate. Source: AWS Lambda pricing page and EC2 On-Demand pricing
 * page (us-east-1, first Lambda duration tier), read 2026-11. Lambda charges the same in most
 * commercial regions; outside `lambdaRegionsWithUsEast1Prices` the estimate says it is
 * unchecked. Re-check before relying on a figure.
 */
export const pricingSource =
  "aws.amazon.com/lambda/pricing and aws.amazon.com/ec2/pricing/on-demand (us-east-1), read 2026-11";

export const lambdaUsdPerGbSecond: Record<Architecture, number> = {
  x86_64: 0.0000166667,
  arm64: 0.0000133334,
};
export const lambdaUsdPerMillionRequests = 0.2;

/**
 * Regions checked to charge the us-east-1 Lambda prices; for any other region the estimate
 * uses the same prices and says they are unchecked there.
 */
export const lambdaRegionsWithUsEast1Prices = new Set([
  "us-east-1",
  "us-east-2",
  "us-west-2",
  "eu-west-1",
  "eu-central-1",
  "ap-northeast-1",
  "ap-southeast-1",
  "ap-southeast-2",
]);

/** On-Demand Linux USD per hour, us-east-1; a type missing here is reported as unknown. */
export const ec2UsdPerHour: Record<string, number> = {
  "c6gn.large": 0.0864,
  "c6gn.xlarge": 0.1728,
  "c7gn.large": 0.1248,
  "c7gn.xlarge": 0.2496,
  "c6in.large": 0.1134,
};
