import type { Command } from "commander";
import type { AwsCommandDeps } from "./aws-session.js";

/**
 * What every AWS command accepts the way the AWS CLI does: `--profile NAME` (the credentials
 * and default region of that profile, passed on as an argument with `withProfile` and
 * `commandRegion`: no command writes process.env) and `--region` (optional: AWS_REGION, AWS_DEFAULT_REGION or the profile's region otherwise).
 */
export function withAwsProfile(command: Command): Command {
  return command.option(
    "--profile <name>",
    "AWS profile of ~/.aws/config and ~/.aws/credentials (default: AWS_PROFILE)",
  );
}

export function withAwsRegion(command: Command, description = "AWS region, e.g. us-west-2"): Command {
  return withAwsProfile(
    command.option(
      "--region <region>",
      `${description} (default: AWS_REGION, AWS_DEFAULT_REGION, then the profile's region)`,
    ),
  );
}

/** The command's AWS deps with its `--profile` (if given) as the argument the session and clients take. */
export function withProfile(deps: AwsCommandDeps, profile: string | undefined): AwsCommandDeps {
  return profile === undefined ? deps : { ...deps, profile };
}

/**
 * `--region` resolved with its fallbacks (the region of `profile`, the command's --profile, when
 * the environment names none); an unknown region is refused (exit 2) before any call.
 */
export async function commandRegion(given: string | undefined, profile?: string): Promise<string> {
  const { resolveRegion } = await import("../../platforms/aws/default-region.js");
  return resolveRegion(given, profile);
}
