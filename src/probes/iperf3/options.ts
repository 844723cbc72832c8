import { z } from "zod";
import { intervalMsOption } from "../interval-option.js";
import { MAX_BLOCK_BYTES, MAX_OMIT_SECONDS, MAX_PARALLEL_STREAMS, MAX_TIME_SECONDS } from "./test-limits.js";

/**
 * The iperf3 probe's options, validated strictly (unknown keys are errors), so a bad event is
 * refused with the field and the allowed values before any traffic flows. The agent's event
 * and the plan's probe entries compose these.
 */

export const iperf3AuthSchema = z
  .object({
    username: z
      .string()
      .min(1)
      .regex(/^[^\s,]+$/, "no whitespace or commas"),
    password: z.string().min(1).regex(/^\S+$/, "no whitespace"),
    /** PEM SubjectPublicKeyInfo of the server's RSA key. */
    publicKeyPem: z.string().includes("BEGIN PUBLIC KEY", { message: "must be a PEM public key" }),
    /** PKCS#1 v1.5 for servers up to 3.16, OAEP (SHA-1, empty label) for 3.17+. No negotiation exists. */
    padding: z.enum(["pkcs1", "oaep"]).default("oaep"),
  })
  .strict();

/**
 * What one test may ask for: the event schema and the client's own check both use these. A test
 * needs a time above 0 even when it ends on a byte count (-n): the time caps it.
 */
export const iperf3TestShape = {
  timeSeconds: z.number().gt(0, "must be > 0 (it also caps a byte-limited test)").max(MAX_TIME_SECONDS),
  parallel: z.number().int().min(1).max(MAX_PARALLEL_STREAMS),
  omitSeconds: z.number().min(0).max(MAX_OMIT_SECONDS),
  blockBytes: z.number().int().min(1).max(MAX_BLOCK_BYTES),
  /** iperf3 -J reporting interval. */
  reportIntervalSeconds: z.number().min(0.1).max(60),
};

export const iperf3EventSchema = z
  .object({
    probe: z.literal("iperf3"),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65_535).default(5201),
    timeSeconds: iperf3TestShape.timeSeconds.default(10),
    parallel: iperf3TestShape.parallel.default(1),
    reverse: z.boolean().default(false),
    bidir: z.boolean().default(false),
    omitSeconds: iperf3TestShape.omitSeconds.default(0),
    blockBytes: iperf3TestShape.blockBytes.default(131_072),
    /** Stop after this many bytes (iperf3 -n); 0 = time-limited. */
    byteLimit: z.number().int().min(0).default(0),
    connectTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    reportIntervalSeconds: iperf3TestShape.reportIntervalSeconds.default(1),
    intervalMs: intervalMsOption,
    /**
     * Idle seconds before the test: a warm environment's token bucket refills only while the link
     * rests, so back-to-back repetitions of a burst-measuring test would start part-empty.
     */
    restSeconds: z.number().min(0).max(600).default(0),
    auth: iperf3AuthSchema.optional(),
  })
  .strict()
  .refine((event) => !(event.reverse && event.bidir), {
    message: "reverse and bidir are mutually exclusive",
    path: ["bidir"],
  });

export type Iperf3Event = z.output<typeof iperf3EventSchema>;
export type Iperf3Auth = z.output<typeof iperf3AuthSchema>;
