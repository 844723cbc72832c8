import { z } from "zod";
import { planRepetitionsSchema } from "../probes/plan-fields.js";
import { type ProbeSpec, plannedProbe, probeEntrySchema, probeNamed } from "../probes/registry.js";
import { builtInProfileNames, labProfileSchema } from "./lab-profile.js";
import { memoryMbSchema } from "./lambda-memory.js";
import { platformNamed, type Target, targetSchema } from "./platforms.js";

/**
 * The experiment matrix a user writes (YAML or JSON): targets x memory sizes x architectures x
 * probes with their parameters x repetitions. Strict: an unknown key is an error naming it, so a
 * typo never silently runs the default. The JSON Schema for editors is generated from this
 * (schema/plan.schema.json, `npm run schema`).
 */

const repetitions = planRepetitionsSchema;

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
    /** iperf3 `parallel`, s3-get `concurrency` and bucket `direction` may be lists: one probe per value. */
    probes: z
      .array(probeEntrySchema)
      .min(1, "at least one probe")
      .transform((entries) => entries.flatMap((entry) => plannedProbe(entry).expandEntry(entry))),
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
    if (
      plan.vpc.includes(true) &&
      !plan.targets.some((target) => platformNamed(target.platform).vpcVariants)
    ) {
      context.addIssue({
        code: "custom",
        path: ["vpc"],
        message: "VPC variants run only on AWS targets (the lab emulates functions outside a VPC)",
      });
    }
  });

/**
 * Custom profile names are unique and never shadow a built-in one; every target passes its
 * platform's own check (a lab target names a known profile). Checked when the plan loads, so a typo stops the run before its directory
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
  plan.targets.forEach((target, index) => {
    const problem = platformNamed(target.platform).targetProblem?.(target, plan);
    if (problem)
      context.addIssue({ code: "custom", path: ["targets", index, problem.field], message: problem.message });
  });
}

export type PlanInput = z.input<typeof planSchema>;
export type Plan = z.output<typeof planSchema>;
/** Kept for the importers of the plan schema that name a target by these. */
export { targetKey, targetName } from "./platforms.js";
export type { ProbeSpec, Target };

/** Probes that measure against the iperf3 server (each invocation needs a server port of its own). */
export function usesIperf3Server(probe: ProbeSpec): boolean {
  return probeNamed(probe.kind)?.peer === "iperf3-server";
}
