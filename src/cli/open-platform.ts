import type { PlatformName, Target, TargetOf } from "../plan/platforms.js";
import { DEFAULT_ENVIRONMENTS } from "../platforms/local/lab.js";
import { LocalPlatform } from "../platforms/local/local-platform.js";
import type { Platform } from "../runner/platform.js";
import type { OpenContext } from "../runner/run-plan.js";

/** What a command took from outside for opening a target, passed on as arguments. */
export interface PlatformAccess {
  /** `--profile`: the AWS profile whose credentials an AWS target uses (without: the SDK's default). */
  awsProfile?: string | undefined;
}

type Opener<Name extends PlatformName> = (
  target: TargetOf<Name>,
  context: OpenContext,
  access: PlatformAccess,
) => Promise<Platform>;

/**
 * How each platform of plan/platforms.ts opens, its code in src/platforms/<name>/: the one place
 * that imports a platform's code for a run. A platform there without a line here fails the
 * typecheck.
 */
const openers: { [Name in PlatformName]: Opener<Name> } = {
  local: (target, context) =>
    LocalPlatform.open({
      profile: target.profile,
      customProfiles: context.profiles ?? [],
      mode: context.unshaped ? "unshaped" : "shaped",
      ...labSize(context),
    }),
  aws: async (target, context, access) => {
    // Loaded only when a target needs it: the AWS SDK adds seconds to every CLI start.
    const { AwsPlatform } = await import("../platforms/aws/aws-platform.js");
    // a fleet of N is N invocations at once: the preflight has checked N against the account
    return AwsPlatform.open({
      region: target.region,
      maxConcurrency: Math.max(10, context.environments ?? 1),
      ...(access.awsProfile !== undefined ? { profile: access.awsProfile } : {}),
    });
  },
};

/** Opens the platform of a plan target: the lab for `local`, the AWS account for `aws`. */
export function openPlatform(
  target: Target,
  context: OpenContext,
  access: PlatformAccess = {},
): Promise<Platform> {
  const open = openers[target.platform] as Opener<PlatformName>;
  return open(target, context, access);
}

/** A lab started for a plan gets an environment for each of its largest fleet's members. */
export function labSize(context: Pick<OpenContext, "environments">): { environments?: number } {
  const largest = context.environments ?? 1;
  return largest > DEFAULT_ENVIRONMENTS ? { environments: largest } : {};
}
