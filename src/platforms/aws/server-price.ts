import { type Filter, type PricingClient, paginateGetProducts } from "@aws-sdk/client-pricing";
import { z } from "zod";
import type { SourcedPrice } from "../../results/price-table.js";
import { type AwsClientOptions, createPricingClient } from "./aws-clients.js";
import { errorName, isThrottling } from "./backoff.js";
import { credentialChain } from "./credentials.js";
import { describeError } from "./preflight-items.js";

/**
 * The iperf3 server's On-Demand price from AWS itself, for the estimate, when the price table
 * lacks the instance type in the region: AWS's Price List Query API (pricing:GetProducts). The
 * filters pin one product (shared-tenancy Linux, no pre-installed software, no licence, the
 * capacity that is used rather than reserved); no match, several matches or an answer we cannot
 * read leave the price missing with the reason, never a guess. A failed call (denied, throttled,
 * no network) is a reason too: the estimate never stops a command.
 */

export interface ServerPriceQuery {
  region: string;
  instanceType: string;
}

/** The GetProducts filters (field names as AWS's EC2 product attributes spell them). */
export function serverPriceFilters(query: ServerPriceQuery): Filter[] {
  const terms: [string, string][] = [
    ["instanceType", query.instanceType],
    ["regionCode", query.region],
    ["operatingSystem", "Linux"],
    ["tenancy", "Shared"],
    ["preInstalledSw", "NA"],
    ["capacitystatus", "Used"],
    ["licenseModel", "No License required"],
  ];
  return terms.map(([Field, Value]) => ({ Type: "TERM_MATCH", Field, Value }));
}

/** The parts of one PriceList document the price is read from. */
const productDocument = z.object({
  product: z.object({
    attributes: z.object({ instanceType: z.string(), regionCode: z.string() }),
  }),
  terms: z.object({
    OnDemand: z.record(
      z.string(),
      z.object({
        priceDimensions: z.record(
          z.string(),
          z.object({ unit: z.string(), pricePerUnit: z.record(z.string(), z.string()) }),
        ),
      }),
    ),
  }),
});

/** The USD per hour one GetProducts answer gives, or why it gives none. Pure. */
export function parseServerHourPrice(
  query: ServerPriceQuery,
  priceList: readonly unknown[],
): { usdPerHour: number } | { reason: string } {
  const what = `On-Demand Linux ${query.instanceType} in ${query.region}`;
  if (priceList.length === 0) return { reason: `it lists no ${what}` };
  if (priceList.length > 1) return { reason: `${priceList.length} products match ${what}, not one` };
  let document: z.infer<typeof productDocument>;
  try {
    // the SDK hands each document over as a JSON string (a String object)
    const parsed = productDocument.safeParse(JSON.parse(String(priceList[0])));
    if (!parsed.success) return { reason: `unreadable answer (${parsed.error.issues[0]?.path.join(".")})` };
    document = parsed.data;
  } catch {
    return { reason: "unreadable answer (not JSON)" };
  }
  const { attributes } = document.product;
  if (attributes.instanceType !== query.instanceType || attributes.regionCode !== query.region)
    return { reason: `it answered for ${attributes.instanceType} in ${attributes.regionCode}` };
  const dimensions = Object.values(document.terms.OnDemand).flatMap((term) =>
    Object.values(term.priceDimensions),
  );
  if (dimensions.length !== 1)
    return { reason: `${dimensions.length} On-Demand prices for ${what}, not one` };
  const [dimension] = dimensions as [(typeof dimensions)[number]];
  const usd = Number(dimension.pricePerUnit.USD);
  if (dimension.unit !== "Hrs" || !(usd > 0) || !Number.isFinite(usd))
    return { reason: `unreadable price (${dimension.pricePerUnit.USD ?? "no USD"} per ${dimension.unit})` };
  return { usdPerHour: usd };
}

/** Why the call got no answer, in a few words. */
function whyNoAnswer(error: unknown): string {
  const name = errorName(error);
  if (name === "AccessDeniedException") return "pricing:GetProducts not allowed (AccessDeniedException)";
  if (isThrottling(error)) return `throttled (${name})`;
  if (name === "CredentialsProviderError") return "no AWS credentials";
  return describeError(error);
}

/** Asks GetProducts once (its pages until two products show): the price with its source, or why not. */
export async function askServerHourPrice(
  pricing: PricingClient,
  query: ServerPriceQuery,
  today: Date = new Date(),
): Promise<SourcedPrice> {
  const missing = (reason: string): SourcedPrice => ({
    usd: null,
    verified: false,
    source: `AWS's Price List API (GetProducts): ${reason}; give the price with --server-usd-per-hour`,
    retrievedOn: null,
  });
  const priceList: unknown[] = [];
  try {
    const pages = paginateGetProducts(
      { client: pricing, pageSize: 10 },
      { ServiceCode: "AmazonEC2", Filters: serverPriceFilters(query), FormatVersion: "aws_v1" },
    );
    for await (const page of pages) {
      priceList.push(...((page.PriceList ?? []) as unknown[]));
      if (priceList.length > 1) break;
    }
  } catch (error) {
    return missing(`no answer, ${whyNoAnswer(error)}`);
  }
  const parsed = parseServerHourPrice(query, priceList);
  if ("reason" in parsed) return missing(parsed.reason);
  const retrievedOn = today.toISOString().slice(0, 10);
  return {
    usd: parsed.usdPerHour,
    verified: true,
    source: `AWS Price List API (GetProducts), retrieved ${retrievedOn}`,
    retrievedOn,
  };
}

/** One command's lookups: each (region, type) is asked once, however often the estimate needs it. */
export function serverPriceLookup(
  pricing: PricingClient,
  today?: Date,
): (query: ServerPriceQuery) => Promise<SourcedPrice> {
  const asked = new Map<string, Promise<SourcedPrice>>();
  return (query) => {
    const key = `${query.region}/${query.instanceType}`;
    let price = asked.get(key);
    if (!price) {
      price = askServerHourPrice(pricing, query, today);
      asked.set(key, price);
    }
    return price;
  };
}

/**
 * The prices of the servers a command's estimate lacks, per region, from a client of their own
 * (run's estimate comes before its preflight opens any other client). Never throws.
 */
export async function lookUpServerPrices(
  queries: readonly ServerPriceQuery[],
  options: Partial<Pick<AwsClientOptions, "credentials" | "profile" | "requestHandler">> = {},
): Promise<Map<string, SourcedPrice>> {
  const pricing = createPricingClient({
    credentials: options.credentials ?? credentialChain(options.profile),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
  });
  try {
    const lookup = serverPriceLookup(pricing);
    const prices = await Promise.all(
      queries.map(async (query) => [query.region, await lookup(query)] as const),
    );
    return new Map(prices);
  } finally {
    pricing.destroy();
  }
}
