// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub placeholders
import { tagKey, tagValue } from "./naming.js";
import type { CfnTemplate } from "./stack-template.js";

/** What a schedule's name may be: it names the nested stack, its resources and its S3 keys. */
export const scheduleNamePattern = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Logical id of the nested stack in the region's stack: `ScheduleDaily` for `daily`. */
export function nestedStackLogicalId(name: string): string {
  return `Schedule${name
    .split("-")
    .map((part) => (part ? part[0]?.toUpperCase() + part.slice(1) : ""))
    .join("")}`;
}

/** The region stack's output that describes the nested stack . */
export function nestedStackOutputKey(name: string): string {
  return `${nestedStackLogicalId(name)}Stack`;
}

/**
 * Schedules live in nested stacks of the region's stack: `teardown` (which deletes that stack)
 * removes them with everything else, yet each schedule has its own template, created and
 * deleted without touching the function or the server. Each nested stack is described by an
 * output of the region's stack, so `deploy`, which rebuilds the region's template from its own
 * options, keeps the schedules by calling keepScheduleStacks with the outputs it already read.
 */
export interface NestedScheduleRef {
  name: string;
  /** Key of the nested template in the bucket (content-addressed: a change is a new key). */
  templateKey: string;
  recorderCodeKey: string;
}

export function nestedScheduleResource(ref: NestedScheduleRef) {
  return {
    Type: "AWS::CloudFormation::Stack",
    Properties: {
      TemplateURL: {
        "Fn::Sub": `https://\${Bucket}.s3.\${AWS::Region}.\${AWS::URLSuffix}/${ref.templateKey}`,
      },
      Parameters: { BucketName: { Ref: "Bucket" }, RecorderCodeKey: ref.recorderCodeKey },
      Tags: [{ Key: tagKey, Value: tagValue }],
    },
  };
}

/** Adds (or replaces) the nested stack of `ref` and its describing output. */
export function addScheduleStack(template: CfnTemplate, ref: NestedScheduleRef): CfnTemplate {
  const copy = structuredClone(template);
  copy.Resources[nestedStackLogicalId(ref.name)] = nestedScheduleResource(ref);
  copy.Outputs[nestedStackOutputKey(ref.name)] = {
    Value: JSON.stringify(ref),
    Description: `lambda-netbench schedule ${ref.name} (nested stack)`,
  };
  return copy;
}

export function removeScheduleStack(template: CfnTemplate, name: string): CfnTemplate {
  const copy = structuredClone(template);
  delete copy.Resources[nestedStackLogicalId(name)];
  delete copy.Outputs[nestedStackOutputKey(name)];
  return copy;
}

/** The schedules a deployed region stack holds, from its outputs. */
export function scheduleStacksFromOutputs(outputs: Record<string, string>): NestedScheduleRef[] {
  const refs: NestedScheduleRef[] = [];
  for (const [key, value] of Object.entries(outputs)) {
    if (!/^Schedule[A-Za-z0-9]+Stack$/.test(key)) continue;
    try {
      const ref = JSON.parse(value) as NestedScheduleRef;
      if (
        typeof ref.name === "string" &&
        scheduleNamePattern.test(ref.name) &&
        typeof ref.templateKey === "string" &&
        typeof ref.recorderCodeKey === "string" &&
        nestedStackOutputKey(ref.name) === key
      )
        refs.push({ name: ref.name, templateKey: ref.templateKey, recorderCodeKey: ref.recorderCodeKey });
    } catch {
      // not one of ours
    }
  }
  return refs.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * The hook for `deploy`: the region's new template plus the schedules the deployed stack
 * already holds (none on a first deploy, or before the function exists).
 */
export function keepScheduleStacks(
  template: CfnTemplate,
  previousOutputs: Record<string, string>,
): CfnTemplate {
  if (!template.Resources.AgentFunction) return template;
  return scheduleStacksFromOutputs(previousOutputs).reduce(addScheduleStack, template);
}
