import { z } from "zod";
import type { Architecture } from "./architecture.js";
import { builtInProfileNames } from "./lab-profile.js";

/**
 * What the plan, the results and the reports know of a platform: the target a plan writes for
 * it, how that target is named, and how its numbers are read. Facts only: a platform's code is
 * its folder `src/platforms/<name>/`, opened by its line in `cli/open-platform.ts` (which sits
 * above the runner, where a platform's code may be imported; this list sits below the results,
 * which read it).
 */
interface PlatformDescriptor<Name extends string, Schema extends z.ZodTypeAny> {
  name: Name;
  /** What a reader calls it in a sentence ("the lab", "AWS"). */
  label: string;
  /** A plan target of this platform: strict, `platform` = the name (plan.schema.json is built from it). */
  targetSchema: Schema;
  /** The target's name within its platform (a lab profile, an AWS region): unique there. */
  targetName(target: z.output<Schema>): string;
  /**
   * True when its numbers come from an emulation, labelled so in every report, priced as the
   * price table's `labPricedAs` region and compared with a baseline by quota, not by region.
   */
  emulated: boolean;
  /** The architectures a target runs, of the plan's (`planned`) and the host's. */
  architectures(planned: readonly Architecture[], host: Architecture): Architecture[];
  /** Whether functions attached to a VPC exist here (the plan's `vpc: [true]` variant). */
  vpcVariants: boolean;
  /** What the bottleneck verdict says when a cell recorded no server CPU. */
  unrecordedServerCpu: string;
  /** A target's problem a schema cannot see alone (a name the plan must know): its field and what is wrong; null when none. */
  targetProblem?(
    target: z.output<Schema>,
    plan: { profiles?: { name: string }[] | undefined },
  ): { field: string; message: string } | null;
}

function definePlatform<const Name extends string, Schema extends z.ZodTypeAny>(
  descriptor: PlatformDescriptor<Name, Schema>,
): PlatformDescriptor<Name, Schema> {
  return descriptor;
}

const localPlatform = definePlatform({
  name: "local",
  label: "the lab",
  targetSchema: z
    .object({
      platform: z.literal("local"),
      /** Lab profile: a built-in one (default-625, raised-3000) or one of the plan's `profiles`. */
      profile: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and dashes"),
    })
    .strict(),
  targetName: (target) => target.profile,
  emulated: true,
  // the lab emulates the network and the CPU share, not another instruction set
  architectures: (_planned, host) => [host],
  vpcVariants: false,
  unrecordedServerCpu: "server CPU not recorded",
  targetProblem: (target, plan) => {
    const builtIn = builtInProfileNames();
    const custom = (plan.profiles ?? []).map((profile) => profile.name).filter((n) => !builtIn.includes(n));
    const allowed = [...builtIn, ...new Set(custom)];
    return allowed.includes(target.profile)
      ? null
      : {
          field: "profile",
          message: `unknown lab profile "${target.profile}" (allowed: ${allowed.join(", ")}; custom ones go under profiles:)`,
        };
  },
});

const awsPlatform = definePlatform({
  name: "aws",
  label: "AWS",
  targetSchema: z
    .object({
      platform: z.literal("aws"),
      region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "an AWS region such as us-west-2"),
    })
    .strict(),
  targetName: (target) => target.region,
  emulated: false,
  architectures: (planned) => [...planned],
  vpcVariants: true,
  unrecordedServerCpu:
    "server CPU not visible from Lambda (the iperf3 server's own CPU on its EC2 instance, or S3 503 SlowDown replies and per-prefix request rates, would show a server limit)",
});

/**
 * Every platform, one entry each; the order is the order of the plan's target union. A new
 * platform is its folder under src/platforms/, its entry here and its opener in
 * cli/open-platform.ts (the typecheck fails while a platform here has none).
 */
export const platformDescriptors = [localPlatform, awsPlatform] as const;

type TargetSchemas<T extends readonly unknown[]> = {
  -readonly [K in keyof T]: T[K] extends { targetSchema: infer Schema } ? Schema : never;
};

/** A plan target, by `platform`. */
export const targetSchema = z.discriminatedUnion(
  "platform",
  platformDescriptors.map((descriptor) => descriptor.targetSchema) as unknown as TargetSchemas<
    typeof platformDescriptors
  >,
);

export type Target = z.output<typeof targetSchema>;
export type PlatformName = Target["platform"];
/** The target of one platform. */
export type TargetOf<Name extends PlatformName> = Extract<Target, { platform: Name }>;

/** A descriptor as the shared code sees it: its callbacks take any platform's target. */
type AnyPlatformDescriptor = PlatformDescriptor<PlatformName, z.ZodType<Target>>;

const byName = new Map<string, AnyPlatformDescriptor>(
  platformDescriptors.map((descriptor) => [descriptor.name, descriptor as unknown as AnyPlatformDescriptor]),
);

/** The descriptor of a platform name (a target's, a record's). */
export function platformNamed(name: PlatformName): AnyPlatformDescriptor {
  const descriptor = byName.get(name);
  if (!descriptor) throw new Error(`no platform named "${name}"`);
  return descriptor;
}

/** True when a platform's numbers come from an emulation (the lab). */
export function isEmulated(name: PlatformName): boolean {
  return platformNamed(name).emulated;
}

/** The targets of one platform, typed as its own. */
export function targetsOn<Name extends PlatformName>(
  targets: readonly Target[],
  name: Name,
): TargetOf<Name>[] {
  return targets.filter((target): target is TargetOf<Name> => target.platform === name);
}

export function targetName(target: Target): string {
  return platformNamed(target.platform).targetName(target);
}

/** "local:default-625" or "aws:us-west-2": unique across platforms. */
export function targetKey(target: Target): string {
  return `${target.platform}:${targetName(target)}`;
}
