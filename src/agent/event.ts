import { z } from "zod";

/**
 * The event an execution environment receives: exactly one probe with its options.
 * Validated strictly (unknown keys are errors) and discriminated by `probe`, so a bad
 * event is refused with the field and the allowed values before any traffic flows.
 */

const intervalMs = z.number().int().min(10).max(10_000).default(250);

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
    intervalMs,
    auth: iperf3AuthSchema.optional(),
  })
  .strict()
  .refine((event) => !(event.reverse && event.bidir), {
    message: "reverse and bidir are mutually exclusive",
    path: ["bidir"],
  });

const s3Common = {
  /** S3-compatible endpoint URL; omit for AWS S3. */
  endpoint: z.url().optional(),
  region: z.string().min(1).default("us-east-1"),
  bucket: z.string().min(3).max(63),
  key: z.string().min(1).max(1024),
  pathStyle: z.boolean().default(false),
  /** PEM CA bundle for TLS to a local server (the content, not a path: Lambda has no such file). */
  caPem: z.string().optional(),
  intervalMs,
  deadlineSeconds: z.number().min(1).max(900).default(300),
  /** Idle limit of one request: no response or no body byte for this long fails (and retries) it. */
  requestTimeoutMs: z.number().int().min(100).max(600_000).default(20_000),
};

export const s3GetEventSchema = z
  .object({
    probe: z.literal("s3-get"),
    ...s3Common,
    concurrency: z.union([z.number().int().min(1).max(64), z.literal("auto")]).default(10),
    chunkMib: z.number().min(1).max(5_120).default(16),
    maxRetries: z.number().int().min(0).max(20).default(5),
  })
  .strict();

export const s3PutEventSchema = z
  .object({
    probe: z.literal("s3-put"),
    ...s3Common,
    sizeMib: z.number().min(1).max(5_242_880),
    partMib: z.number().min(5).max(5_120).default(64),
    concurrency: z.number().int().min(1).max(64).default(8),
    maxRetries: z.number().int().min(0).max(20).default(5),
  })
  .strict();

export const infoEventSchema = z.object({ probe: z.literal("info") }).strict();

/** Diagnostic probes for the lab: prove the CPU share and the memory limit are real. */
export const cpuBurnEventSchema = z
  .object({ probe: z.literal("cpu-burn"), seconds: z.number().min(0.1).max(60).default(3) })
  .strict();
export const allocateEventSchema = z
  .object({ probe: z.literal("allocate"), mib: z.number().int().min(1).max(65_536) })
  .strict();

export const agentEventSchema = z.discriminatedUnion("probe", [
  iperf3EventSchema,
  s3GetEventSchema,
  s3PutEventSchema,
  infoEventSchema,
  cpuBurnEventSchema,
  allocateEventSchema,
]);

export type AgentEvent = z.output<typeof agentEventSchema>;
export type AgentEventInput = z.input<typeof agentEventSchema>;
export type Iperf3Event = z.output<typeof iperf3EventSchema>;
export type Iperf3Auth = z.output<typeof iperf3AuthSchema>;
export type S3GetEvent = z.output<typeof s3GetEventSchema>;
export type S3PutEvent = z.output<typeof s3PutEventSchema>;
export type InfoEvent = z.output<typeof infoEventSchema>;
export type ProbeKind = AgentEvent["probe"];

/** One line per problem: `field: what is wrong (allowed: ...)`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "(event)";
      return `${field}: ${issue.message}`;
    })
    .join("; ");
}

export function parseAgentEvent(input: unknown): AgentEvent {
  const parsed = agentEventSchema.safeParse(input);
  if (!parsed.success) throw new InvalidEventError(describeIssues(parsed.error));
  return parsed.data;
}

export class InvalidEventError extends Error {
  constructor(message: string) {
    super(`invalid event: ${message}`);
    this.name = "InvalidEventError";
  }
}
