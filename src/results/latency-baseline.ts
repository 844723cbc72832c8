import { z } from "zod";
import data from "./baselines/published-latency.json" with { type: "json" };
import type { LatencyCell } from "./latency-cells.js";
import { type Percentiles, percentiles } from "./latency-percentiles.js";
import { publishedFileSchema, publishedIdSchema } from "./published-file.js";

/**
 * Published S3 GET latency from Lambda (measured by others, in AWS), shown beside a latency
 * cell that measured the same thing: the same request size, kept-alive connections, the same
 * memory size. The file keeps the published per-request times; the percentiles are computed
 * here by the same rule as ours (nearest rank, with the n each needs). Nothing here was
 * measured by this tool.
 */

const seriesSchema = z
  .object({
    id: publishedIdSchema,
    client: z.string().min(1),
    memoryMb: z.number().int().min(128).max(10_240),
    vpc: z.boolean(),
    region: z.string().min(1),
    timesMs: z.array(z.number().positive()).min(1),
  })
  .strict();

const publishedLatency = publishedFileSchema("published-latency", {
  source: z.string().min(1),
  method: z.string().min(1),
  requestBytes: z.number().int().positive(),
  connectionMode: z.literal("kept-alive"),
  series: z.array(seriesSchema).min(1),
}).parse(data);

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
 * The published series that measured what `cell` measured: ranged GETs of the published size at
 * the cell's memory size, inside a VPC or not as the cell was. A whole-object GET of the same size
 * is another request (no Range header), and a VPC function reaches S3 another way.
 */
export function publishedLatenciesFor(
  cell: Pick<LatencyCell, "requestBytes" | "memoryMb" | "ranged" | "vpc">,
): PublishedLatency[] {
  if (cell.requestBytes !== publishedLatency.requestBytes || !cell.ranged) return [];
  return publishedLatencies().filter((s) => s.memoryMb === cell.memoryMb && s.vpc === cell.vpc);
}

/**
 * The cell's time to last byte measured as the source measured its own: kept-alive requests, each
 * on a connection already open (the source left its first 3 reads out). A kept-alive mode whose
 * measured requests opened a connection (no warm-up request, or a connection the server closed)
 * holds connect and TLS times the source's do not: null.
 */
export function warmKeptAliveTotal(cell: Pick<LatencyCell, "modes">): Percentiles | null {
  const mode = cell.modes.find((m) => m.mode === publishedLatency.connectionMode);
  if (!mode || mode.connectionsOpened > 0) return null;
  return mode.phases.total;
}
