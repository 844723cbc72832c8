import type { Target } from "../plan/plan-schema.js";
import { LocalPlatform } from "../platforms/local/local-platform.js";
import type { Platform } from "../platforms/platform.js";

interface AwsPlatformModule {
  AwsPlatform: { open(options: { region: string }): Promise<Platform> };
}

// The AWS platform is loaded when a target needs it: its SDK clients stay out of lab runs,
// `report` and `compare`, and a build without it still runs the lab.
const awsModule = "../platforms/aws/aws-platform.js";

/** Opens the platform of a plan target: the lab for `local`, the AWS account for `aws`. */
export async function openPlatform(target: Target): Promise<Platform> {
  if (target.platform === "local") {
    return LocalPlatform.open({ profile: target.profile });
  }
  const module = (await importPlatform(awsModule, "the AWS platform")) as AwsPlatformModule;
  return module.AwsPlatform.open({ region: target.region });
}

async function importPlatform(specifier: string, what: string): Promise<unknown> {
  try {
    return await import(specifier);
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      String(error).includes(specifier.split("/").at(-1) as string)
    ) {
      throw new Error(`${what} is not part of this build of lambda-netbench`);
    }
    throw error;
  }
}
