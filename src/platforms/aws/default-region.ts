import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { AwsInputError, validateRegion } from "./aws-input.js";

/**
 * The region a command uses when `--region` is not given, as the AWS CLI finds it:
 * AWS_REGION, then AWS_DEFAULT_REGION, then the `region` of the profile (the command's
 * --profile, else AWS_PROFILE, else `default`) in the shared config file (AWS_CONFIG_FILE, or ~/.aws/config). Whatever the
 * source, an unknown region is refused with the field that named it.
 */
export function profileRegion(configText: string, profile: string): string | null {
  const wanted = profile === "default" ? ["default", "profile default"] : [`profile ${profile}`];
  let inWanted = false;
  for (const raw of configText.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, "").trim();
    const section = /^\[(.+)\]$/.exec(line)?.[1]?.trim().replace(/\s+/g, " ");
    if (section !== undefined) inWanted = wanted.includes(section);
    else if (inWanted) {
      const match = /^region\s*=\s*(\S+)$/.exec(line);
      if (match?.[1]) return match[1];
    }
  }
  return null;
}

export function defaultRegion(
  env: NodeJS.ProcessEnv = process.env,
  readConfig: (path: string) => string | null = readIfPresent,
  named?: string,
): { region: string; source: string } | null {
  if (env.AWS_REGION) return { region: env.AWS_REGION, source: "AWS_REGION" };
  if (env.AWS_DEFAULT_REGION) return { region: env.AWS_DEFAULT_REGION, source: "AWS_DEFAULT_REGION" };
  const profile = named || env.AWS_PROFILE || "default";
  const path = env.AWS_CONFIG_FILE || join(homedir(), ".aws", "config");
  const text = readConfig(path);
  const region = text === null ? null : profileRegion(text, profile);
  return region ? { region, source: `profile ${profile} (${path})` } : null;
}

/**
 * `--region`, else the default region (of `profile`, the command's --profile, when the
 * environment names none); the field named in errors is where the value came from.
 */
export function resolveRegion(
  given: string | undefined,
  profile?: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (given !== undefined) return validateRegion(given);
  const found = defaultRegion(env, readIfPresent, profile);
  if (!found)
    throw new AwsInputError(
      "region",
      "no region: pass --region (e.g. us-west-2), or set AWS_REGION or AWS_DEFAULT_REGION, or a region in the AWS profile",
    );
  return validateRegion(found.region, found.source);
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
