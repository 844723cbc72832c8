import type { Architecture } from "../platforms/platform.js";
import table from "./prices.json" with { type: "json" };

/** One region's Lambda list prices, USD. */
export interface LambdaPrice {
  region: string;
  requestUsd: number;
  gigabyteSecondUsd: number;
  /** False when the figure was not checked against AWS's page on `retrievedOn`: shown as "verify". */
  verified: boolean;
}

export interface PriceTable {
  retrievedOn: string;
  source: string;
  labPricedAs: string;
  regions: Record<
    string,
    { verified: boolean; requestPerMillion: number; gigabyteSecond: Record<Architecture, number> }
  >;
}

export const priceTable: PriceTable = table;

/** The price for a target (a region, or a lab profile priced as `labPricedAs`); null for an unknown region. */
export function lambdaPrice(
  platform: "local" | "aws",
  region: string,
  arch: Architecture,
  prices: PriceTable = priceTable,
): LambdaPrice | null {
  const priceRegion = platform === "local" ? prices.labPricedAs : region;
  const entry = prices.regions[priceRegion];
  if (!entry) return null;
  return {
    region: priceRegion,
    requestUsd: entry.requestPerMillion / 1e6,
    gigabyteSecondUsd: entry.gigabyteSecond[arch],
    verified: entry.verified,
  };
}
