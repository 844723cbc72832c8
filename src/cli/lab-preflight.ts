import type { Plan } from "../plan/plan-schema.js";
import { targetsOn } from "../plan/platforms.js";
import { checkShapedLab } from "../platforms/local/capabilities.js";
import { LabRefusal } from "../platforms/local/lab-refusal.js";
import { chooseProfile } from "../platforms/local/profiles.js";

/**
 * Before a run directory exists: can this host run the plan's lab targets shaped (root, the
 * kernel pieces, netem for a profile with a round trip)? Returns the refusal to print (the
 * command exits 2), or null. `--unshaped` needs none of it.
 */
export async function labRefusal(plan: Plan, unshaped: boolean): Promise<string | null> {
  if (unshaped) return null;
  const names = [...new Set(targetsOn(plan.targets, "local").map((target) => target.profile))];
  if (names.length === 0) return null;
  try {
    await checkShapedLab(names.map((name) => chooseProfile(name, plan.profiles)));
    return null;
  } catch (error) {
    if (error instanceof LabRefusal) return error.message;
    throw error;
  }
}
