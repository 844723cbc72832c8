import type { Architecture } from "../plan/architecture.js";
import { isLambdaMemoryMb, MEMORY_MB_RANGE } from "../plan/lambda-memory.js";
import {
  dataTransferGigabytePrice,
  ec2HourPrice,
  lambdaPrice,
  priceTable,
  publicIpv4HourPrice,
  type SourcedPrice,
} from "./price-table.js";

/**
 * The one cost estimator (run --dry-run and the run's confirmation, deploy --with-server, the
 * reports' method notes): Lambda GB-seconds and requests, the iperf3 server's EC2 hours, its
 * public IPv4 address and the data it exchanges with Lambda. Prices come from the one table
 * (price-table.ts), or for the server a price found outside it and handed in with its source
 * (AWS's Price List API, looked up at the command's edge); a price neither gives is reported
 * missing with the reason, never guessed. Pure.
 */
export interface CostInput {
  region: string;
  lambda: { memoryMb: number; arch: Architecture; billedSeconds: number; invocations: number }[];
  /**
   * The iperf3 server for `hours` (null: no server). Its hourly price: `usdPerHourOverride` (the
   * command line) first, then the table, then `listedPrice` (looked up where the table lacks the
   * type; a null `usd` there carries why the lookup gave none).
   */
  server: {
    instanceType: string;
    hours: number;
    usdPerHourOverride?: number;
    listedPrice?: SourcedPrice;
  } | null;
  /** Bytes between Lambda and the server's public address (iperf3 traffic); S3 in-region is free of transfer charges. */
  serverTransferBytes: number;
}

export interface CostLine {
  item: "lambda-duration" | "lambda-requests" | "ec2-server" | "public-ipv4" | "data-transfer";
  /** What is billed, with its unit: "412.5 GB-seconds", "3.00 hours", ... */
  quantity: string;
  /** Null when the price is not in the table. */
  usd: number | null;
  verified: boolean;
  source: string;
}

export interface CostEstimate {
  region: string;
  lambdaGbSeconds: number;
  requests: number;
  serverHours: number;
  serverTransferGigabytes: number;
  lines: CostLine[];
  /** Sum of the priced lines. */
  knownUsd: number;
  /** Items whose price is missing from the table (the total is a lower bound then). */
  missing: CostLine["item"][];
  /** Items priced with an unverified figure. */
  unverified: CostLine["item"][];
}

export function estimateCost(input: CostInput): CostEstimate {
  let lambdaGbSeconds = 0;
  let lambdaUsd: number | null = 0;
  let requests = 0;
  let requestsUsd: number | null = 0;
  let lambdaVerified = true;
  let lambdaSource = priceTable.source;
  for (const [index, item] of input.lambda.entries()) {
    if (!isLambdaMemoryMb(item.memoryMb))
      throw new RangeError(`lambda[${index}].memoryMb: ${item.memoryMb} (allowed: ${MEMORY_MB_RANGE})`);
    if (!(item.billedSeconds >= 0) || !(item.invocations >= 0))
      throw new RangeError(`lambda[${index}]: billedSeconds and invocations must be 0 or more`);
    // AWS bills memory in MB as 1/1024 GB and duration rounded up to the millisecond
    const gbSeconds =
      (item.memoryMb / 1024) * (Math.ceil(item.billedSeconds * 1000) / 1000) * item.invocations;
    lambdaGbSeconds += gbSeconds;
    requests += item.invocations;
    const price = lambdaPrice("aws", input.region, item.arch);
    if (price === null) {
      lambdaUsd = null;
      requestsUsd = null;
      lambdaSource = `${input.region} is not in the price table`;
      continue;
    }
    lambdaVerified &&= price.verified;
    lambdaSource = priceTable.regions[input.region]?.source ?? priceTable.source;
    if (lambdaUsd !== null) lambdaUsd += gbSeconds * price.gigabyteSecondUsd;
    if (requestsUsd !== null) requestsUsd += item.invocations * price.requestUsd;
  }
  const lines: CostLine[] = [
    {
      item: "lambda-duration",
      quantity: `${lambdaGbSeconds.toFixed(1)} GB-seconds`,
      usd: lambdaUsd,
      verified: lambdaVerified,
      source: lambdaSource,
    },
    {
      item: "lambda-requests",
      quantity: `${requests} requests`,
      usd: requestsUsd,
      verified: lambdaVerified,
      source: lambdaSource,
    },
  ];
  const serverHours = input.server?.hours ?? 0;
  const serverTransferGigabytes = input.serverTransferBytes / 1e9;
  if (input.server) {
    const hourly = serverHourPrice(input.region, input.server);
    const ipv4 = publicIpv4HourPrice();
    const transfer = dataTransferGigabytePrice();
    lines.push(
      priced(
        "ec2-server",
        `${serverHours.toFixed(2)} hours of ${input.server.instanceType}`,
        serverHours,
        hourly,
      ),
      priced("public-ipv4", `${serverHours.toFixed(2)} hours of 1 address`, serverHours, ipv4),
      priced("data-transfer", `${serverTransferGigabytes.toFixed(2)} GB`, serverTransferGigabytes, transfer),
    );
  }
  return {
    region: input.region,
    lambdaGbSeconds,
    requests,
    serverHours,
    serverTransferGigabytes,
    lines,
    knownUsd: lines.reduce((sum, line) => sum + (line.usd ?? 0), 0),
    missing: lines.filter((line) => line.usd === null).map((line) => line.item),
    unverified: lines.filter((line) => line.usd !== null && !line.verified).map((line) => line.item),
  };
}

function serverHourPrice(region: string, server: NonNullable<CostInput["server"]>): SourcedPrice {
  if (server.usdPerHourOverride !== undefined)
    return {
      usd: server.usdPerHourOverride,
      verified: false,
      source: "given on the command line",
      retrievedOn: null,
    };
  const table = ec2HourPrice(region, server.instanceType);
  if (table.usd !== null || !server.listedPrice) return table;
  if (server.listedPrice.usd !== null) return server.listedPrice;
  // neither has it: the table's gap and the lookup's reason, together
  return { ...server.listedPrice, source: `${table.source}; ${server.listedPrice.source}` };
}

function priced(item: CostLine["item"], quantity: string, amount: number, price: SourcedPrice): CostLine {
  return {
    item,
    quantity,
    usd: price.usd === null ? null : amount * price.usd,
    verified: price.verified,
    source: price.source,
  };
}
