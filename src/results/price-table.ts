import type { Architecture } from "../plan/architecture.js";
import { isEmulated, type PlatformName } from "../plan/platforms.js";
import table from "./prices.json" with { type: "json" };

/**
 * The one price table (prices.json: every entry with its source and date) and the lookups every
 * cost figure goes through: run's and deploy's estimates and the reports' cost per GB moved.
 * No price appears anywhere else in src (test/results/price-literals.test.ts).
 */

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
  /** Lambda prices per region, every `sameAs` entry already resolved to its figures. */
  regions: Record<
    string,
    {
      verified: boolean;
      requestPerMillion: number;
      gigabyteSecond: Record<Architecture, number>;
      source?: string;
      retrievedOn?: string | null;
    }
  >;
}

type LambdaEntry =
  | {
      verified: boolean;
      source: string;
      retrievedOn: string | null;
      requestPerMillion: number;
      gigabyteSecond: Record<Architecture, number>;
    }
  | { verified: false; sameAs: string; source: string; retrievedOn: string | null };

/** A price the table may not have: null `usd` means "not sourced", never a guess. */
export interface SourcedPrice {
  usd: number | null;
  verified: boolean;
  source: string;
  retrievedOn: string | null;
}

interface PriceFile {
  retrievedOn: string;
  source: string;
  labPricedAs: string;
  lambda: Record<string, LambdaEntry>;
  ec2OnDemand: {
    regions: Record<
      string,
      Record<string, { verified: boolean; usdPerHour: number; source: string; retrievedOn: string }>
    >;
  };
  publicIpv4: { usdPerHour: number | null; verified: boolean; source: string; retrievedOn: string | null };
  dataTransfer: {
    usdPerGigabyte: number | null;
    verified: boolean;
    source: string;
    retrievedOn: string | null;
  };
}

const file = table as PriceFile;

function resolveLambda(entries: Record<string, LambdaEntry>): PriceTable["regions"] {
  const regions: PriceTable["regions"] = {};
  for (const [region, entry] of Object.entries(entries)) {
    if ("sameAs" in entry) {
      const base = entries[entry.sameAs];
      if (!base || "sameAs" in base) throw new Error(`prices.json: ${region}.sameAs names no priced region`);
      regions[region] = {
        verified: false,
        requestPerMillion: base.requestPerMillion,
        gigabyteSecond: base.gigabyteSecond,
        source: entry.source,
        retrievedOn: entry.retrievedOn,
      };
    } else regions[region] = entry;
  }
  return regions;
}

export const priceTable: PriceTable = {
  retrievedOn: file.retrievedOn,
  source: file.source,
  labPricedAs: file.labPricedAs,
  regions: resolveLambda(file.lambda),
};

/** The price for a target (a region, or a lab profile priced as `labPricedAs`); null for an unknown region. */
export function lambdaPrice(
  platform: PlatformName,
  region: string,
  arch: Architecture,
  prices: PriceTable = priceTable,
): LambdaPrice | null {
  const priceRegion = isEmulated(platform) ? prices.labPricedAs : region;
  const entry = prices.regions[priceRegion];
  if (!entry) return null;
  return {
    region: priceRegion,
    requestUsd: entry.requestPerMillion / 1e6,
    gigabyteSecondUsd: entry.gigabyteSecond[arch],
    verified: entry.verified,
  };
}

/** On-Demand Linux USD per hour of an instance type in a region; usd null when the table lacks it. */
export function ec2HourPrice(region: string, instanceType: string): SourcedPrice {
  const entry = file.ec2OnDemand.regions[region]?.[instanceType];
  if (entry) return sourced(entry, entry.usdPerHour);
  const elsewhere = Object.entries(file.ec2OnDemand.regions).find(([, types]) => types[instanceType]);
  return {
    usd: null,
    verified: false,
    source: elsewhere
      ? `${instanceType} is priced only for ${elsewhere[0]} in the table`
      : `${instanceType} is not in the price table`,
    retrievedOn: null,
  };
}

/** A table entry's price with where it came from. */
function sourced(entry: Omit<SourcedPrice, "usd">, usd: number | null): SourcedPrice {
  return { usd, verified: entry.verified, source: entry.source, retrievedOn: entry.retrievedOn };
}

/** USD per hour of one public IPv4 address (the server's). */
export function publicIpv4HourPrice(): SourcedPrice {
  return sourced(file.publicIpv4, file.publicIpv4.usdPerHour);
}

/** USD per GB between Lambda and the server's public address. */
export function dataTransferGigabytePrice(): SourcedPrice {
  return sourced(file.dataTransfer, file.dataTransfer.usdPerGigabyte);
}
