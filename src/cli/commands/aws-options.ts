import type { Command } from "commander";

/**
 * What every AWS command accepts the way the AWS CLI does: `--profile NAME` (the credentials
 * and default region of that profile; it sets AWS_PROFILE for the SDK's chain) and `--region`
 * (optional: AWS_REGION, AWS_DEFAULT_REGION or the profile's region otherwise).
 */
export function withAwsProfile(command: Command): Command {
  return command
    .option("--profile <name>", "AWS profile of ~/.aws/config and ~/.aws/credentials (default: AWS_PROFILE)")
    .hook("preAction", (_command, action) => {
      const profile = action.opts<{ profile?: string }>().profile;
      if (profile !== undefined) process.env.AWS_PROFILE = profile;
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

/** `--region` resolved with its fallbacks; an unknown region is refused (exit 2) before any call. */
export async function commandRegion(given: string | undefined): Promise<string> {
  const { resolveRegion } = await import("../../platforms/aws/default-region.js");
  return resolveRegion(given);
}
