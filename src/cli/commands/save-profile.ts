import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { LabProfile } from "../../plan/lab-profile.js";
import { builtInProfileNames } from "../../plan/lab-profile.js";

/**
 * `--save-profile NAME`: the fitted bucket model written as a runnable plan whose `profiles:`
 * holds it, with a bucket probe on it (or the probes given: `fit` replays the original's own
 * settings): `lambda-netbench run --config NAME.plan.json` replays the measured environment in
 * the lab (edit the probes to study it further).
 */
export function checkProfileName(name: string): string | null {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(name))
    return `--save-profile: "${name}" is not a profile name (lowercase letters, digits and '-', at most 63 characters)`;
  if (builtInProfileNames().includes(name))
    return `--save-profile: "${name}" is a built-in profile (allowed: any other name)`;
  return null;
}

export async function writeProfilePlan(
  profile: LabProfile,
  memorySizes: number[],
  dir: string,
  probes: object[] = [{ kind: "bucket" }],
): Promise<string> {
  const plan = {
    name: profile.name,
    targets: [{ platform: "local", profile: profile.name }],
    memoryMb: [...new Set(memorySizes)].sort((a, b) => a - b),
    probes,
    profiles: [profile],
  };
  const path = resolve(dir, `${profile.name}.plan.json`);
  await writeFile(path, `${JSON.stringify(plan, null, 2)}\n`);
  return path;
}
