import type { Command } from "commander";
import type { AwsCommandDeps } from "./aws-session.js";

/**
 * Commands whose action does not yet hand its `--profile` to `commandRegion` and
 * `openAwsSession`: for them the option reaches the SDK through AWS_PROFILE. `deploy` is the
 * one left (its command is being split into named steps); every other AWS command passes the
 * profile as an argument and leaves process.env alone.
 */
const profileThroughEnvironment = new Set(["deploy"]);

/**
 * What every AWS command accepts the way the AWS CLI does: `--profile NAME` (the credentials
 * and default region of that profile, passed on with `withProfile` and `commandRegion`) and
 * `--region` (optional: AWS_REGION, AWS_DEFAULT_REGION or the profile's region otherwise).
 */
export function withAwsProfile(command: Command): Command {
  return command
    .option("--profile <name>", "AWS profile of ~/.aws/config and ~/.aws/credentials (default: AWS_PROFILE)")
    .hook("preAction", (_command, action) => {
      const profile = action.opts<{ profile?: string }>().profile;
      if (profile !== undefined && profileThroughEnvironment.has(action.name()))
        process.env.AWS_PROFILE = profile;
    });
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
