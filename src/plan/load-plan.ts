import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { expandPlan, PlanError } from "./expand-plan.js";
import { type Plan, type PlanInput, planSchema } from "./plan-schema.js";
import { isPresetName, presetNames, presets } from "./presets.js";

export interface PlanSource {
  /** Path to a YAML or JSON plan file. */
  configPath?: string;
  /** Name of a built-in plan. */
  preset?: string;
  /** Replaces the plan's targets with these AWS regions. */
  regions?: string[];
}

/**
 * Reads, overrides and validates a plan, and expands it once so that every problem (including
 * duplicate cells) is reported before anything runs. Without a source: the `quick` preset on the lab.
 */
export async function loadPlan(source: PlanSource): Promise<Plan> {
  if (source.configPath && source.preset) {
    throw new PlanError(["--config and --preset: give one or the other"]);
  }
  let input: unknown;
  if (source.configPath) {
    input = await readPlanFile(source.configPath);
  } else {
    const name = source.preset ?? "quick";
    if (!isPresetName(name)) {
      throw new PlanError([`--preset: unknown preset "${name}" (allowed: ${presetNames.join(", ")})`]);
    }
    input = structuredClone(presets[name]);
  }
  if (source.regions && source.regions.length > 0 && typeof input === "object" && input !== null) {
    (input as PlanInput).targets = source.regions.map((region) => ({ platform: "aws", region }));
  }
  return validatePlan(input);
}

export function validatePlan(input: unknown): Plan {
  const parsed = planSchema.safeParse(input);
  if (!parsed.success) throw new PlanError(describePlanIssues(parsed.error));
  expandPlan(parsed.data);
  return parsed.data;
}

async function readPlanFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new PlanError([`--config: cannot read ${path}: ${(error as Error).message}`]);
  }
  try {
    return path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new PlanError([
      `${path}: not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`,
    ]);
  }
}

/** `field.path: message` per problem, with the allowed values zod knows. */
export function describePlanIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join(".") : "(plan)";
    return `${field}: ${issue.message}`;
  });
}
