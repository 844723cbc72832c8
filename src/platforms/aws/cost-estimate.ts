import { createInterface } from "node:readline/promises";
import type { Architecture } from "../platform.js";
import { validateMemoryMb } from "./aws-input.js";
import {
  ec2UsdPerHour,
  lambdaRegionsWithUsEast1Prices,
  lambdaUsdPerGbSecond,
  lambdaUsdPerMillionRequests,
  pricingSource,
} from "./pricing.js";

/**
 * The cost of a run before it starts: Lambda GB-seconds (memory in GB x billed seconds), the
 * requests, and the EC2 server's hours. Kept generic so the runner passes what its plan
 * expands to, one line per memory size and architecture.
 */
export interface CostInput {
  region: string;
  items: { memoryMb: number; arch: Architecture; expectedSeconds: number; invocations: number }[];
  ec2: { instanceType: string; hours: number } | null;
  /** Overrides the table's EC2 price (USD per hour), e.g. for a type it does not list. */
  ec2UsdPerHourOverride?: number;
}

export interface CostEstimate {
  region: string;
  lambdaGbSeconds: number;
  lambdaUsd: number;
  requests: number;
  requestsUsd: number;
  ec2Hours: number;
  /** Null when the instance type's price is unknown (not in the table, no override). */
  ec2Usd: number | null;
  /** Lambda + requests + EC2 (EC2 counted only when known). */
  totalUsd: number;
  notes: string[];
}

export function estimateCost(input: CostInput): CostEstimate {
  let lambdaGbSeconds = 0;
  let lambdaUsd = 0;
  let requests = 0;
  for (const [index, item] of input.items.entries()) {
    validateMemoryMb(item.memoryMb, `items[${index}].memoryMb`);
    if (!(item.expectedSeconds >= 0) || !(item.invocations >= 0))
      throw new Error(`items[${index}]: expectedSeconds and invocations must be 0 or more`);
    // AWS bills memory in MB as 1/1024 GB, duration rounded up to the millisecond
    const gbSeconds =
      (item.memoryMb / 1024) * (Math.ceil(item.expectedSeconds * 1000) / 1000) * item.invocations;
    lambdaGbSeconds += gbSeconds;
    lambdaUsd += gbSeconds * lambdaUsdPerGbSecond[item.arch];
    requests += item.invocations;
  }
  const requestsUsd = (requests / 1_000_000) * lambdaUsdPerMillionRequests;
  const notes = [`prices: ${pricingSource}`];
  if (!lambdaRegionsWithUsEast1Prices.has(input.region))
    notes.push(
      `Lambda prices of ${input.region} not checked: this estimate uses us-east-1's, see the pricing page`,
    );
  let ec2Usd: number | null = 0;
  const ec2Hours = input.ec2?.hours ?? 0;
  if (input.ec2) {
    const price = input.ec2UsdPerHourOverride ?? ec2UsdPerHour[input.ec2.instanceType];
    if (price === undefined) {
      ec2Usd = null;
      notes.push(
        `EC2 price of ${input.ec2.instanceType} not in the table: pass its USD per hour to include it`,
      );
    } else ec2Usd = price * input.ec2.hours;
    notes.push(
      "S3 requests, CloudWatch Logs and data transfer to a public IP are not included (small at this scale)",
    );
  }
  return {
    region: input.region,
    lambdaGbSeconds,
    lambdaUsd,
    requests,
    requestsUsd,
    ec2Hours,
    ec2Usd,
    totalUsd: lambdaUsd + requestsUsd + (ec2Usd ?? 0),
    notes,
  };
}

export function formatCostEstimate(estimate: CostEstimate): string {
  const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;
  return [
    `Cost estimate for ${estimate.region}:`,
    `  Lambda duration  ${estimate.lambdaGbSeconds.toFixed(1)} GB-seconds  ${usd(estimate.lambdaUsd)}`,
    `  Lambda requests  ${estimate.requests}  ${usd(estimate.requestsUsd)}`,
    `  EC2 server       ${estimate.ec2Hours.toFixed(2)} hours  ${estimate.ec2Usd === null ? "price unknown" : usd(estimate.ec2Usd)}`,
    `  Total            ${usd(estimate.totalUsd)}${estimate.ec2Usd === null ? " + EC2" : ""}`,
    ...estimate.notes.map((note) => `  note: ${note}`),
  ].join("\n");
}

/**
 * Prints the estimate and asks before spending: proceeds with `yes`, or after the user types
 * "yes" on a terminal; refuses (false) when there is no terminal to ask on.
 */
export async function confirmRun(
  estimates: CostEstimate[],
  options: {
    yes: boolean;
    input?: NodeJS.ReadableStream & { isTTY?: boolean };
    output?: NodeJS.WritableStream;
  },
): Promise<boolean> {
  const output = options.output ?? process.stderr;
  for (const estimate of estimates) output.write(`${formatCostEstimate(estimate)}\n`);
  if (options.yes) return true;
  const input = options.input ?? process.stdin;
  if (!input.isTTY) {
    output.write("not starting: pass --yes to accept this cost (no terminal to ask on)\n");
    return false;
  }
  const prompt = createInterface({ input, output });
  try {
    const answer = await prompt.question("Start the run? Type yes to accept this cost: ");
    return answer.trim().toLowerCase() === "yes";
  } finally {
    prompt.close();
  }
}
