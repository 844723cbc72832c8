import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The exact command that renews an expired login, from where the SDK's credential chain took the
 * credentials: the environment's keys, or the profile (`AWS_PROFILE`, else `default`) in the
 * shared config and credentials files, following `source_profile` to the profile that logs in.
 * Reads the files as the SDK does (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, ~/.aws/...),
 * synchronously: it runs once, when a run pauses.
 */
export interface LoginAdvice {
  /** The command to run, e.g. `aws sso login --profile bench`; null when there is none to run. */
  command: string | null;
  /** One sentence: what to do, with the command when there is one. */
  text: string;
}

type Sections = Map<string, Map<string, string>>;

/** INI sections with their keys (comments, blank lines and nested sub-keys skipped). */
export function parseIni(text: string): Sections {
  const sections: Sections = new Map();
  let current: Map<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      const name = (header[1] as string).trim().replace(/\s+/g, " ");
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      continue;
    }
    const pair = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    // an indented line continues a nested key (s3 = ...); not needed here
    if (pair && current && !/^\s/.test(raw))
      current.set((pair[1] as string).toLowerCase(), pair[2] as string);
  }
  return sections;
}

function readIni(path: string): Sections {
  try {
    return parseIni(readFileSync(path, "utf8"));
  } catch {
    return new Map();
  }
}

/** `named`: the command's --profile, which wins over AWS_PROFILE as it does for the chain. */
export function loginAdvice(env: NodeJS.ProcessEnv = process.env, named?: string): LoginAdvice {
  const explicitProfile = named?.trim() || env.AWS_PROFILE?.trim() || undefined;
  // the chain uses the environment's keys first unless a profile is named
  if (!explicitProfile && env.AWS_ACCESS_KEY_ID)
    return {
      command: null,
      text: env.AWS_SESSION_TOKEN
        ? "get new temporary keys and export AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN again"
        : "the keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are no longer valid: export valid ones",
    };
  const home = env.HOME || homedir();
  const config = readIni(env.AWS_CONFIG_FILE || join(home, ".aws", "config"));
  const credentials = readIni(env.AWS_SHARED_CREDENTIALS_FILE || join(home, ".aws", "credentials"));
  const start = explicitProfile ?? "default";
  const seen = new Set<string>();
  let profile = start;
  for (;;) {
    seen.add(profile);
    const settings = new Map([
      ...(config.get(profile === "default" ? "default" : `profile ${profile}`) ?? config.get(profile) ?? []),
      ...(credentials.get(profile) ?? []),
    ]);
    const flag = profile === "default" && !explicitProfile ? "" : ` --profile ${profile}`;
    const via =
      profile === start ? "" : ` (profile "${start}" assumes a role with the credentials of "${profile}")`;
    if (settings.has("sso_session") || settings.has("sso_start_url")) {
      const command = `aws sso login${flag}`;
      return { command, text: `log in again with \`${command}\`${via}` };
    }
    if (settings.has("login_session")) {
      const command = `aws login${flag}`;
      return { command, text: `log in again with \`${command}\`${via}` };
    }
    const source = settings.get("source_profile");
    if (settings.has("role_arn") && source && !seen.has(source)) {
      profile = source;
      continue;
    }
    if (settings.has("credential_process"))
      return {
        command: null,
        text: `renew what profile "${profile}"'s credential_process (\`${settings.get("credential_process")}\`) reads${via}`,
      };
    if (settings.has("aws_access_key_id"))
      return {
        command: null,
        text: `put new keys for profile "${profile}" into ${env.AWS_SHARED_CREDENTIALS_FILE || "~/.aws/credentials"}${settings.has("aws_session_token") ? " (its session token has expired)" : ""}${via}`,
      };
    // not in the files (an instance or container role, web identity): nothing to log in to
    return {
      command: null,
      text: explicitProfile
        ? `log in again for profile "${start}" (\`aws sso login --profile ${start}\` if it is an SSO profile)`
        : "log in again (`aws sso login` for an SSO profile), or renew the keys of your profile or environment",
    };
  }
}
