import { z } from "zod";
import { intervalMsOption } from "../interval-option.js";

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
    /** PKCS#1 v1.5 for servers up to 3.16, OAEP for 3.17+. */
    padding: z.enum(["pkcs1", "oaep"]).default("oaep"),
  })
  .strict();

export const iperf3EventSchema = z
  .object({
    probe: z.literal("iperf3"),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65_535).default(5201),
    timeSeconds: z.number().min(0).max(86_400).default(10),
    parallel: z.number().int().min(1).max(128).default(1),
    reverse: z.boolean().default(false),
    bidir: z.boolean().default(false),
    omitSeconds: z.number().min(0).max(600).default(0),
    blockBytes: z.number().int().min(1).max(1_048_576).default(131_072),
    /** Stop after this many bytes (iperf3 -n); 0 = time-limited. */
    byteLimit: z.number().int().min(0).default(0),
    connectTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
    /** iperf3 -J reporting interval. */
    reportIntervalSeconds: z.number().min(0.1).max(60).default(1),
    intervalMs: intervalMsOption,
    auth: iperf3AuthSchema.optional(),
  })
  .strict()
  .refine((event) => !(event.reverse && event.bidir), {
    message: "reverse and bidir are mutually exclusive",
    path: ["bidir"],
  });

export type Iperf3Event = z.output<typeof iperf3EventSchema>;
export type Iperf3Auth = z.output<typeof iperf3AuthSchema>;
