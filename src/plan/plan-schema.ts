import { z } from "zod";
import { bucketEventSchema } from "../probes/bucket/options.js";
import { iperf3EventSchema } from "../probes/iperf3/options.js";
import { s3GetEventSchema, s3PutEventSchema } from "../probes/s3/options.js";
import { builtInProfileNames, labProfileSchema } from "./lab-profile.js";
import { memoryMbSchema } from "./lambda-memory.js";

/**
 * The experiment matrix a user writes (YAML or JSON): targets x memory sizes x architectures x
 * probes with their parameters x repetitions. Strict: an unknown key is an error naming it, so a
 * typo never silently runs the default. The JSON Schema for editors is generated from this
 * (schema/plan.schema.json, `npm run schema`).
 */

const repetitions = z.number().int().min(1).max(1_000);

export const targetSchema = z.discriminatedUnion("platform", [
  z
    .object({
      platform: z.literal("local"),
      /** Lab profile: a built-in one (default-625, raised-3000) or one of the plan's `profiles`. */
      profile: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and dashes"),
    })
    .strict(),
  z
    .object({
      platform: z.literal("aws"),
      region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "an AWS region such as us-west-2"),
    })
    .strict(),
]);

// Probe parameters the agent's event also carries keep the event's limits: one definition each.
const iperf3Event = iperf3EventSchema.shape;
const s3GetEvent = s3GetEventSchema.shape;
const s3PutEvent = s3PutEventSchema.shape;
const bucketEvent = bucketEventSchema.shape;

const probeCommon = {
  /** Overrides the plan's repetitions for this probe (e.g. 1 for single-stream S3). */
  repetitions: repetitions.optional(),
  /** Free text shown in reports instead of the generated label. */
  label: z.string().min(1).max(60).optional(),
};

export const iperf3ProbeSchema = z
  .object({
    kind: z.literal("iperf3"),
    timeSeconds: z.number().min(1).max(600).default(10),
    parallel: iperf3Event.parallel.unwrap().default(4),
    /** upload = environment sends (iperf3 default); download = -R; bidir = --bidir. */
    direction: z.enum(["upload", "download", "bidir"]).default("upload"),
    omitSeconds: z.number().min(0).max(60).default(0),
    ...probeCommon,
  })
  .strict();

export const s3GetProbeSchema = z
  .object({
    kind: z.literal("s3-get"),
    /** Size of the test object, MiB (the study: 1,024 MiB = 1 GiB). */
    objectMib: z.number().int().min(1).max(5_242_880).default(1_024),
    concurrency: s3GetEvent.concurrency,
    chunkMib: s3GetEvent.chunkMib,
    ...probeCommon,
  })
  .strict();

export const s3PutProbeSchema = z
  .object({
    kind: z.literal("s3-put"),
    sizeMib: z.number().int().min(1).max(5_242_880).default(1_024),
    partMib: s3PutEvent.partMib,
    concurrency: s3PutEvent.concurrency,
    ...probeCommon,
  })
  .strict();

/**
 * The environment's token bucket in one direction against the iperf3 server (src/probes/bucket):
 * a long transfer, then idle gaps each followed by a short transfer. Every field has a default,
 * so `{ kind: bucket }` alone measures both directions (see expandStreamLists).
 */
export const bucketProbeSchema = z
  .object({
    kind: z.literal("bucket"),
    direction: z.enum(["upload", "download"]).default("download"),
    parallel: bucketEvent.parallel,
    intervalMs: bucketEvent.intervalMs,
    transferSeconds: bucketEvent.transferSeconds,
    gapsSeconds: bucketEvent.gapsSeconds,
    refillTransferSeconds: bucketEvent.refillTransferSeconds,
    restSeconds: bucketEvent.restSeconds,
    ...probeCommon,
  })
  .strict();

export const infoProbeSchema = z.object({ kind: z.literal("info"), ...probeCommon }).strict();

export const probeSpecSchema = z.discriminatedUnion("kind", [
  iperf3ProbeSchema,
  s3GetProbeSchema,
  s3PutProbeSchema,
  bucketProbeSchema,
  infoProbeSchema,
]);

/**
 * A stream count, or a list of them: a list is a streams axis (like memory), one probe per
 * count, in the order given. Distinct values only, so each count is one cell.
 */
function countOrList<T extends z.ZodType>(single: T) {
  return z.union([
    single,
    z
      .array(single)
      .min(1, "at least one value")
      .refine((values) => new Set(values).size === values.length, "values must be distinct"),
  ]);
}

/**
 * What a plan file may write for a probe: iperf3 `parallel` and s3-get `concurrency` also take a
 * list; bucket `direction` too (default both: one cell per direction).
 */
const probeEntrySchema = z.discriminatedUnion("kind", [
  iperf3ProbeSchema.extend({ parallel: countOrList(iperf3Event.parallel.unwrap()).default(4) }),
  s3GetProbeSchema.extend({ concurrency: countOrList(s3GetEvent.concurrency.unwrap()).default(10) }),
  s3PutProbeSchema,
  bucketProbeSchema.extend({
    direction: z
      .union([
        bucketProbeSchema.shape.direction.unwrap(),
        z.array(bucketProbeSchema.shape.direction.unwrap()),
      ])
      .default(["download", "upload"])
      .refine(
        (value) => !Array.isArray(value) || (value.length > 0 && new Set(value).size === value.length),
        {
          message: "directions must be distinct, at least one",
        },
      ),
  }),
  infoProbeSchema,
]);
type ProbeEntry = z.output<typeof probeEntrySchema>;

/**
 * One probe per value of a streams list; a single value stays the very same probe, so the cell
 * ids of plans without lists never change. A label gets the count appended, so the cells of a
 * sweep stay apart in reports.
 */
export function expandStreamLists(entries: ProbeEntry[]): ProbeSpec[] {
  return entries.flatMap((entry): ProbeSpec[] => {
    if (entry.kind === "iperf3" && Array.isArray(entry.parallel)) {
      return entry.parallel.map((parallel) => ({
        ...entry,
        parallel,
        ...(entry.label ? { label: `${entry.label} -P ${parallel}` } : {}),
      }));
    }
    if (entry.kind === "s3-get" && Array.isArray(entry.concurrency)) {
      return entry.concurrency.map((concurrency) => ({
        ...entry,
        concurrency,
        ...(entry.label ? { label: `${entry.label} conc ${concurrency}` } : {}),
      }));
    }
    if (entry.kind === "bucket" && Array.isArray(entry.direction)) {
      return entry.direction.map((direction) => ({
        ...entry,
        direction,
        ...(entry.label ? { label: `${entry.label} ${direction}` } : {}),
      }));
    }
    return [entry as ProbeSpec];
  });
}

export const planSchema = z
  .object({
    /** Names the run directory: runs/<date>-<name>. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-' (max 64)")
      .default("run"),
    targets: z.array(targetSchema).min(1, "at least one target"),
    memoryMb: z
      .array(memoryMbSchema)
      .min(1, "at least one memory size")
      .refine((sizes) => new Set(sizes).size === sizes.length, "memory sizes must be distinct"),
    architectures: z
      .array(z.enum(["arm64", "x86_64"]))
      .min(1)
      .refine((archs) => new Set(archs).size === archs.length, "architectures must be distinct")
      .default(["arm64"]),
    /** iperf3 `parallel` and s3-get `concurrency` may be lists: a streams axis (see expandStreamLists). */
    probes: z.array(probeEntrySchema).min(1, "at least one probe").transform(expandStreamLists),
    repetitions: repetitions.default(3),
    /** One untimed invocation per environment variant before measuring, so no measurement is cold. */
    warmup: z.boolean().default(true),
    /**
     * Upper bound on invocations at once per target (the platform's own limit still applies).
     * Default: 1 on the lab (its environments share this machine), the platform's limit on AWS.
     */
    parallelism: z.number().int().min(1).max(1_000).optional(),
    /**
     * Environments invoked at once per cell (fan-out): each measures with its own server port and
     * connections; reports show the per-environment rate and the group's aggregate against N.
     */
    environments: z
      .array(z.number().int().min(1, "at least 1 environment").max(256, "at most 256 environments at once"))
      .min(1, "at least one count")
      .refine((counts) => new Set(counts).size === counts.length, "environment counts must be distinct")
      .default([1]),
    /**
     * Function variants: outside a VPC (false) and attached to the VPC subnets given at deploy
     * (true; `deploy --vpc-subnets`). The bandwidth quota covers non-VPC functions only. AWS
     * targets only: lab targets always run the non-VPC variant.
     */
    vpc: z
      .array(z.boolean())
      .min(1, "at least one variant")
      .refine((variants) => new Set(variants).size === variants.length, "each variant once")
      .default([false]),
    /** "Time to move N GB" in the report. */
    moveGigabytes: z.number().positive().max(1_000_000).default(100),
    /**
     * Custom lab profiles (same fields as the built-in ones in lab-profiles.json); a `local`
     * target may name one of them.
     */
    profiles: z.array(labProfileSchema).optional(),
  })
  .strict()
  .superRefine((plan, context) => {
    checkProfileNames(plan, context);
    if (plan.vpc.includes(true) && !plan.targets.some((target) => target.platform === "aws")) {
      context.addIssue({
        code: "custom",
        path: ["vpc"],
        message: "VPC variants run only on AWS targets (the lab emulates functions outside a VPC)",
      });
    }
  });

/**
 * Custom profile names are unique and never shadow a built-in one; every `local` target names
 * a known profile. Checked when the plan loads, so a typo stops the run before its directory
 * exists, with the allowed names listed.
 */
function checkProfileNames(
  plan: { targets: Target[]; profiles?: { name: string }[] | undefined },
  context: z.RefinementCtx,
): void {
  const builtIn = builtInProfileNames();
  const custom = (plan.profiles ?? []).map((profile) => profile.name);
  custom.forEach((name, index) => {
    if (builtIn.includes(name)) {
      context.addIssue({
        code: "custom",
        path: ["profiles", index, "name"],
        message: `"${name}" is a built-in profile; give the custom one another name`,
      });
    } else if (custom.indexOf(name) !== index) {
      context.addIssue({
        code: "custom",
        path: ["profiles", index, "name"],
        message: `"${name}" is defined twice`,
      });
    }
  });
  const allowed = [...builtIn, ...custom.filter((name) => !builtIn.includes(name))];
  plan.targets.forEach((target, index) => {
    if (target.platform === "local" && !allowed.includes(target.profile)) {
      context.addIssue({
        code: "custom",
        path: ["targets", index, "profile"],
        message: `unknown lab profile "${target.profile}" (allowed: ${allowed.join(", ")}; custom ones go under profiles:)`,
      });
    }
  });
}

export type PlanInput = z.input<typeof planSchema>;
export type Plan = z.output<typeof planSchema>;
export type Target = z.output<typeof targetSchema>;
export type ProbeSpec = z.output<typeof probeSpecSchema>;
export type Iperf3ProbeSpec = z.output<typeof iperf3ProbeSchema>;
export type S3GetProbeSpec = z.output<typeof s3GetProbeSchema>;
export type S3PutProbeSpec = z.output<typeof s3PutProbeSchema>;
export type BucketProbeSpec = z.output<typeof bucketProbeSchema>;

/** Probes that measure against the iperf3 server (each invocation needs a server port of its own). */
export function usesIperf3Server(probe: ProbeSpec): probe is Iperf3ProbeSpec | BucketProbeSpec {
  return probe.kind === "iperf3" || probe.kind === "bucket";
}

export function targetName(target: Target): string {
  return target.platform === "local" ? target.profile : target.region;
}

/** "local:default-625" or "aws:us-west-2": unique across platforms. */
export function targetKey(target: Target): string {
  return `${target.platform}:${targetName(target)}`;
}
