import { z } from "zod";
import { intervalMsOption } from "../interval-option.js";
import { s3ObjectFields } from "../s3/options.js";

/**
 * The latency probe's options: `requests` small S3 GETs of one size, on one kept-alive
 * connection and on a new connection each, with every request's phases timed; optionally the
 * TCP connect time to the iperf3 server, so a study shows the round trip it measured. Strict,
 * like every probe's options, so a bad event names its field before a request is sent.
 */

/** The two ways a function reaches S3: a pooled connection reused, or a new one per request. */
export const CONNECTION_MODES = ["kept-alive", "new"] as const;
export type ConnectionMode = (typeof CONNECTION_MODES)[number];

/** 100 requests per mode: enough for a p99 that is not the maximum (nearest rank needs n >= 100). */
export const DEFAULT_LATENCY_REQUESTS = 100;
/** 64 KiB: the size of the published Lambda GET figures this probe is compared with. */
export const DEFAULT_LATENCY_BYTES = 65_536;

export const latencyEventSchema = z
  .object({
    probe: z.literal("latency"),
    ...s3ObjectFields,
    /**
     * Bytes each GET asks for: a ranged GET of the object's first `bytes` (the object must be at
     * least that large); null: the whole object.
     */
    bytes: z.number().int().min(1).max(1_073_741_824).nullable().default(DEFAULT_LATENCY_BYTES),
    /** Measured requests per connection mode. */
    requests: z.number().int().min(1).max(10_000).default(DEFAULT_LATENCY_REQUESTS),
    /**
     * Requests per mode sent first and not measured: the first request of a process pays for
     * code loaded and compiled on first use, which no later request of a warm function does.
     */
    warmupRequests: z.number().int().min(0).max(100).default(2),
    connections: z
      .array(z.enum(CONNECTION_MODES))
      .min(1)
      .max(2)
      .refine((modes) => new Set(modes).size === modes.length, { message: "each mode at most once" })
      .default([...CONNECTION_MODES]),
    /** The iperf3 server to time TCP connects to (connect, then close: no test is started). */
    iperf3: z
      .object({
        host: z.string().min(1),
        port: z.number().int().min(1).max(65_535).default(5201),
        connects: z.number().int().min(1).max(1_000).default(20),
      })
      .strict()
      .optional(),
    intervalMs: intervalMsOption,
    deadlineSeconds: z.number().min(1).max(900).default(300),
    /** Idle limit of one request: no connection, response or body byte for this long fails it. */
    requestTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict();

export type LatencyEvent = z.output<typeof latencyEventSchema>;
