import { AwsInputError } from "./aws-input.js";
import { tagKey, tagValue } from "./naming.js";
import type { CfnTemplate } from "./stack-template.js";

/**
 * What organization accounts require of everything deployed, commonly enforced by SCPs:
 * a permissions boundary on every role (`--permissions-boundary`), CloudFormation acting
 * through a service role (`--role-arn`), and mandatory tags (`--tags`). Pure: deploy and
 * `schedule create` apply them to the templates and stack calls they build.
 */
export interface OrganizationOptions {
  /** The managed policy every role of the stack (schedules' roles too) gets as its boundary. */
  permissionsBoundaryArn?: string;
  /** The role CloudFormation assumes to create, update and delete the stack. */
  serviceRoleArn?: string;
  /** Tags on the stack, which CloudFormation puts on every resource that takes tags. */
  tags?: Array<{ Key: string; Value: string }>;
}

/** The region stack's output that carries the boundary to the schedules' nested stacks. */
export const permissionsBoundaryOutput = "PermissionsBoundaryArn";

const iamArn = (kind: "policy" | "role") =>
  new RegExp(`^arn:aws[\\w-]*:iam::(\\d{12}|aws):${kind}/[\\w+=,.@/-]{1,512}$`);

export function validatePolicyArn(text: string, field: string): string {
  if (iamArn("policy").test(text)) return text;
  throw new AwsInputError(
    field,
    `"${text}" is not an IAM policy ARN (arn:aws:iam::123456789012:policy/NAME)`,
  );
}

export function validateRoleArn(text: string, field: string): string {
  if (iamArn("role").test(text) && !text.includes(":iam::aws:")) return text;
  throw new AwsInputError(field, `"${text}" is not an IAM role ARN (arn:aws:iam::123456789012:role/NAME)`);
}

/**
 * `--tags K=V,K2=V2`: keys 1-128 characters, values up to 256, not the reserved `aws:` prefix,
 * not our own tag (teardown finds everything by it), no key twice.
 */
export function parseTags(text: string, field = "tags"): Array<{ Key: string; Value: string }> {
  const tags: Array<{ Key: string; Value: string }> = [];
  for (const pair of text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0)) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw new AwsInputError(field, `"${pair}" is not KEY=VALUE`);
    const Key = pair.slice(0, equals).trim();
    const Value = pair.slice(equals + 1).trim();
    if (Key.length > 128 || Value.length > 256)
      throw new AwsInputError(field, `"${Key}": keys hold at most 128 characters, values 256`);
    if (!/^[\p{L}\p{Z}\p{N}_.:/=+\-@]+$/u.test(Key) || !/^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u.test(Value))
      throw new AwsInputError(field, `"${pair}": allowed are letters, digits, spaces and _ . : / = + - @`);
    if (Key.toLowerCase().startsWith("aws:"))
      throw new AwsInputError(field, `"${Key}": the aws: prefix is AWS's own`);
    if (Key === tagKey) throw new AwsInputError(field, `"${Key}" is the tool's own tag (always set)`);
    if (tags.some((tag) => tag.Key === Key)) throw new AwsInputError(field, `"${Key}" given twice`);
    tags.push({ Key, Value });
  }
  if (tags.length === 0) throw new AwsInputError(field, "no KEY=VALUE pair given");
  // a resource holds at most 50 tags; ours is one of them
  if (tags.length > 49)
    throw new AwsInputError(field, `${tags.length} tags: at most 49 beside the tool's own`);
  return tags;
}

/**
 * The stack's tags reach the iperf3 server's instance, whose tags are readable from its
 * metadata (the watchdog reads its time-to-live there). EC2 then refuses to launch an instance
 * with a tag key that is not a valid metadata path: letters, digits and + - = . , _ : @ only (no
 * space, no "/"), and not ".", ".." or "_index". Checked before any call.
 */
export function checkMetadataTagKeys(tags: Array<{ Key: string }>, field = "tags"): void {
  for (const { Key } of tags)
    if (!/^[A-Za-z0-9+\-=.,_:@]+$/.test(Key) || [".", "..", "_index"].includes(Key))
      throw new AwsInputError(
        field,
        `"${Key}": the iperf3 server's tags are readable from its instance metadata, where a key holds only letters, digits and + - = . , _ : @ (no space, no /, not "." ".." "_index"); EC2 would refuse to launch the server: rename the key, or deploy without --with-server`,
      );
}

/** The stack's tags: ours first, then the organization's. */
export function stackTags(options: OrganizationOptions): Array<{ Key: string; Value: string }> {
  return [{ Key: tagKey, Value: tagValue }, ...(options.tags ?? [])];
}

/** Every AWS::IAM::Role of the template gets the boundary (and the stack says which, for schedules). */
export function withPermissionsBoundary(template: CfnTemplate, boundaryArn: string | undefined): CfnTemplate {
  if (!boundaryArn) return template;
  const copy = structuredClone(template);
  for (const resource of Object.values(copy.Resources) as Array<{
    Type: string;
    Properties?: Record<string, unknown>;
  }>)
    if (resource.Type === "AWS::IAM::Role")
      resource.Properties = { ...resource.Properties, PermissionsBoundary: boundaryArn };
  return copy;
}
