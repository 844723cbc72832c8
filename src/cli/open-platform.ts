import type { Target } from "../plan/plan-schema.js";
import { DEFAULT_ENVIRONMENTS } from "../platforms/local/lab.js";
import { LocalPlatform } from "../platforms/local/local-platform.js";
import type { Platform } from "../runner/platform.js";
import type { OpenContext } from "../runner/run-plan.js";

/** Opens the platform of a plan target: the lab for `local`, the AWS account for `aws`. */
export async function openPlatform(target: Target, context: OpenContext): Promise<Platform> {
  if (target.platform === "local") {
    return LocalPlatform.open({
      profile: target.profile,
      customProfiles: context.profiles ?? [],
      mode: context.unshaped ? "unshaped" : "shaped",
      ...labSize(context),
    });
  }
  // Loaded only when a target needs it: the AWS SDK adds seconds to every CLI start.
  const { AwsPlatform } = await import("../platforms/aws/aws-platform.js");
  // a fleet of N is N invocations at once: the preflight has checked N against the account
  return AwsPlatform.open({ region: target.region, maxConcurrency: Math.max(10, context.environments ?? 1) });
}

/** A lab started for a plan gets an environment for each of its largest fleet's members. */
export function labSize(context: Pick<OpenContext, "environments">): { environments?: number } {
  const largest = context.environments ?? 1;
  return largest > DEFAULT_ENVIRONMENTS ? { environments: largest } : {};
}
