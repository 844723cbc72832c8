import { z } from "zod";
import data from "./baselines/published-latency.json" with { type: "json" };
import type { LatencyCell } from "./latency-cells.js";
import { type Percentiles, percentiles } from "./latency-percentiles.js";

/**
 * Published S3 GET latency from Lambda (measured by others, in AWS), shown beside a latency
 * cell that measured the same thing: the same request size, kept-alive connections, the same
 * memory size. The file keeps the published per-request times; the percentiles are computed
 * here by the same rule as ours (nearest rank, with the n each needs). Nothing here was
 * measured by this tool.
 */

const seriesSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    client: z.string().min(1),
    memoryMb: z.number().int().min(128).max(10_240),
    vpc: z.boolean(),
    region: z.string().min(1),
    timesMs: z.array(z.number().positive()).min(1),
  })
  .strict();

const publishedLatency = z
  .object({
    name: z.literal("published-latency"),
    title: z.string().min(1),
    transcribedOn: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    source: z.string().min(1),
    method: z.string().min(1),
    requestBytes: z.number().int().positive(),
    connectionMode: z.literal("kept-alive"),
    series: z.array(seriesSchema).min(1),
  })
  .strict()
  .parse(data);

export interface PublishedLatency {
  id: string;
  client: string;
  memoryMb: number;
  vpc: boolean;
  region: string;
  /** Time to last byte of each published request, seconds. */
  total: Percentiles;
  source: string;
  method: string;
}

export const publishedLatencySource = { source: publishedLatency.source, method: publishedLatency.method };

/** Every published series, with its percentiles (seconds). */
export function publishedLatencies(): PublishedLatency[] {
  return publishedLatency.series.map((s) => ({
    id: s.id,
    client: s.client,
    memoryMb: s.memoryMb,
    vpc: s.vpc,
    region: s.region,
    total: percentiles(s.timesMs.map((ms) => ms / 1000)) as Percentiles,
    source: publishedLatency.source,
    method: publishedLatency.method,
  }));
}

/**
 * The published series that measured what `cell` measured: kept-alive GETs of the published
 * size at the cell's memory size, outside a VPC (a cell's VPC is not known to the latency
 * cells; the published VPC series are 2,048 MB only and listed apart).
 */
export function publishedLatenciesFor(
  cell: Pick<LatencyCell, "requestBytes" | "memoryMb">,
): PublishedLatency[] {
  if (cell.requestBytes !== publishedLatency.requestBytes) return [];
  return publishedLatencies().filter((s) => s.memoryMb === cell.memoryMb && !s.vpc);
}
