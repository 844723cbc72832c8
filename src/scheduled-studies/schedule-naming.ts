import type { Architecture } from "../plan/architecture.js";
import { AwsInputError } from "../platforms/aws/aws-input.js";
import { aliasName, recorderFunctionSuffix, stackName } from "../platforms/aws/naming.js";
import { scheduleNamePattern } from "../platforms/aws/nested-stacks.js";

/**
 * Names of what one schedule creates in a region. Everything derives from the schedule's name,
 * so list, run-now, pull and delete find it again without any local state.
 */

export function validateScheduleName(name: string, field = "name"): string {
  if (scheduleNamePattern.test(name)) return name;
  throw new AwsInputError(
    field,
    `"${name}" is not allowed (allowed: 1-32 lower-case letters, digits and dashes, starting with a letter or digit)`,
  );
}

/** A schedule name from a plan name (plan names may hold capitals, dots and underscores). */
export function defaultScheduleName(planName: string): string {
  const cleaned = planName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32)
    .replace(/-+$/, "");
  return cleaned === "" ? "study" : cleaned;
}

/** The state machine, the EventBridge schedule and its roles share this prefix. */
export function scheduleResourceName(name: string): string {
  return `${stackName}-${name}`;
}

/**
 * The schedule's own alias per memory size and architecture. Not the aliases `run` uses
 * (`m1024-arm64`): `run` deletes those when it ends, and each schedule keeps its version.
 */
export function scheduleAliasName(name: string, memoryMb: number, arch: Architecture): string {
  return `s-${name}-${aliasName(memoryMb, arch)}`;
}

/** Where a schedule keeps its template and its expanded cells in the region's bucket. */
export const schedulePrefix = "schedules/";
/** Where scheduled runs write their manifests and records: runs/RUN_ID/. */
export const runsPrefix = "runs/";
/** The recorder's code, beside the agent's (the agent/ prefix never expires). */
export const recorderCodePrefix = "agent/recorder-";

export function scheduleKeys(name: string) {
  const base = `${schedulePrefix}${name}/`;
  return {
    prefix: base,
    template: `${base}template.json`,
    /** What the recorder's `begin` step reads: manifest parts, warm-ups, test objects, inline tasks. */
    execution: `${base}execution.json`,
    /** Every task as a JSON array: the Distributed Map's ItemReader reads it. */
    tasks: `${base}tasks.json`,
  };
}

export function runKeys(runId: string) {
  const base = `${runsPrefix}${runId}/`;
  return { prefix: base, manifest: `${base}manifest.json`, records: `${base}records/` };
}

/** One object per record, so concurrent Map iterations never write the same object. */
export function recordKey(runId: string, cellId: string, repetition: number): string {
  return `${runKeys(runId).records}${cellId}-${repetition}.jsonl`;
}

export function recorderFunctionName(name: string): string {
  return `${scheduleResourceName(name)}-${recorderFunctionSuffix}`;
}
