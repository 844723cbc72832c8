import { DeleteStackCommand, paginateListStackResources } from "@aws-sdk/client-cloudformation";
import { paginateDescribeLogGroups } from "@aws-sdk/client-cloudwatch-logs";
import { DescribeInstancesCommand } from "@aws-sdk/client-ec2";
import { GetInstanceProfileCommand, GetRoleCommand } from "@aws-sdk/client-iam";
import { paginateGetResources } from "@aws-sdk/client-resource-groups-tagging-api";
import { DeleteParametersCommand, paginateGetParametersByPath } from "@aws-sdk/client-ssm";
import { deniedAction, deniedByScp, isAccessDenied } from "./access-denied.js";
import type { AwsClients } from "./aws-clients.js";
import { errorName } from "./backoff.js";
import { emptyBucket } from "./bucket-emptying.js";
import { deletePublishedVersions } from "./function-versions.js";
import { logGroupName, parameterPath, stackName, tagKey } from "./naming.js";
import { describeStack, waitForStack } from "./stack-state.js";

export interface TeardownOptions {
  stackPoll?: { pollIntervalMs: number; timeoutMs: number };
  /** The tagging API is eventually consistent: how long to keep checking for leftovers. */
  verify?: { attempts: number; intervalMs: number };
  log?: (line: string) => void;
  /**
   * The region's schedules (the scheduled studies supply these): disabled before anything is
   * deleted, so none starts a run half-way, and listed again after, to verify they are gone.
   */
  schedules?: { disable(): Promise<string[]>; remaining(): Promise<string[]> };
}

export interface TeardownResult {
  stackExisted: boolean;
  deletedVersions: number;
  deletedAliases: number;
  emptiedBuckets: string[];
  deletedObjectVersions: number;
  abortedUploads: number;
  deletedParameters: string[];
  /** ARNs still tagged `lambda-netbench` after the last check (empty: verified clean). */
  remaining: string[];
  /** Terminated EC2 instances the tagging API still lists (AWS keeps them visible for a while). */
  terminatedInstances: string[];
  /**
   * IAM roles, instance profiles and log groups, checked by name (the tagging API cannot see
   * IAM): the names the stack's resources had, and the agent's log group.
   */
  checkedByName: string[];
  /** Of those, what still exists after the last check (empty: verified gone). */
  remainingByName: string[];
  /** Schedules disabled first, and those still listed after the last check. */
  disabledSchedules: string[];
  remainingSchedules: string[];
  /**
   * Look-ups the account denied (an SCP or a policy without the permission), each with the
   * permission it lacked: what they would have verified is not known to be gone.
   */
  notVerified: string[];
  dryRun: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resources still carrying the tag, through the Resource Groups Tagging API. */
export async function listTaggedResources(clients: AwsClients): Promise<string[]> {
  const arns: string[] = [];
  for await (const page of paginateGetResources(
    { client: clients.tagging },
    { TagFilters: [{ Key: tagKey }] },
  ))
    for (const mapping of page.ResourceTagMappingList ?? [])
      if (mapping.ResourceARN) arns.push(mapping.ResourceARN);
  return arns;
}

/** Of the listed ARNs, the EC2 instances that are terminated (gone, but still listed by AWS). */
async function terminatedInstanceArns(clients: AwsClients, arns: string[]): Promise<Set<string>> {
  const byId = new Map<string, string>();
  for (const arn of arns) {
    const match = /^arn:aws[\w-]*:ec2:[^:]*:\d*:instance\/(i-[0-9a-f]+)$/.exec(arn);
    if (match) byId.set(match[1] as string, arn);
  }
  const terminated = new Set<string>();
  for (const [instanceId, arn] of byId) {
    try {
      const response = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
      const state = response.Reservations?.[0]?.Instances?.[0]?.State?.Name;
      if (state === "terminated") terminated.add(arn);
    } catch (error) {
      // an instance EC2 no longer knows at all is as gone as a terminated one
      if (errorName(error) === "InvalidInstanceID.NotFound") terminated.add(arn);
      else throw error;
    }
  }
  return terminated;
}

/**
 * Removes everything deploy created in the region, deleting first and verifying after. What is
 * deleted comes from the stack itself (its outputs name the bucket, its resources the roles
 * and log groups) and from the function and parameter path the tool owns: published versions
 * and aliases, the bucket's contents (all versions, delete markers, unfinished uploads), the
 * stack, the SSM parameters. Only then the look-ups that verify (the tagging API, the log
 * groups, IAM by name, the schedules), each best effort: one an account denies (an
 * organization's SCP often leaves the scheduler or the tagging API out) is reported as not
 * verified, with the permission it lacked, and never stops the deletion. Every step tolerates
 * "already gone", so it can run again.
 */
export async function teardownRegion(
  clients: AwsClients,
  options: TeardownOptions = {},
): Promise<TeardownResult> {
  const log = options.log ?? (() => {});
  const dryRun = clients.recorder.dryRun;
  const poll = options.stackPoll ?? { pollIntervalMs: 10_000, timeoutMs: 45 * 60_000 };
  const result: TeardownResult = {
    stackExisted: false,
    deletedVersions: 0,
    deletedAliases: 0,
    emptiedBuckets: [],
    deletedObjectVersions: 0,
    abortedUploads: 0,
    deletedParameters: [],
    remaining: [],
    terminatedInstances: [],
    checkedByName: [],
    remainingByName: [],
    disabledSchedules: [],
    remainingSchedules: [],
    notVerified: [],
    dryRun,
  };
  const bestEffort = lookUps(result, log);
  const state = await describeStack(clients.cloudFormation);
  result.stackExisted = state !== null;
  if (options.schedules) {
    // the schedules live in the stack's nested stacks and go with it: disabling them first only
    // keeps one from starting a run half-way, so a denied look-up does not stop the deletion
    const schedules = options.schedules;
    result.disabledSchedules =
      (await bestEffort(
        "the schedules were not disabled first (they go with the stack)",
        "scheduler:ListSchedules",
        () => schedules.disable(),
      )) ?? [];
    if (result.disabledSchedules.length > 0)
      log(
        `${dryRun ? "would disable" : "disabled"} schedule(s) ${result.disabledSchedules.join(", ")} first`,
      );
  }

  const versions = await deletePublishedVersions(clients.lambda, { log });
  result.deletedVersions = versions.versions;
  result.deletedAliases = versions.aliases;

  // the stack's bucket (its output; a stack whose deletion failed still names it)
  const bucket = state?.outputs.BucketName;
  if (bucket && dryRun) log(`would empty s3://${bucket} (all versions, delete markers, multipart uploads)`);
  else if (bucket) {
    const emptied = await emptyBucket(clients.s3, bucket);
    if (emptied.bucketExisted) result.emptiedBuckets.push(bucket);
    result.deletedObjectVersions += emptied.deletedVersions;
    result.abortedUploads += emptied.abortedUploads;
  }

  // names of what the tagging API cannot see, taken before the stack (and its list) is gone
  const byName = state ? await namedResources(clients) : [];
  if (!byName.some((entry) => entry.kind === "log-group" && entry.name === logGroupName))
    byName.push({ kind: "log-group", name: logGroupName });
  // also any log group of ours whose stack is already gone (a re-run after a failed teardown)
  result.checkedByName = [
    ...byName.map((entry) => `${entry.kind} ${entry.name}`),
    `log-group ${ourLogGroupPrefix}*`,
  ];

  if (state) {
    log(`deleting stack ${stackName} (${state.status})`);
    await clients.cloudFormation.send(new DeleteStackCommand({ StackName: stackName }));
    if (!dryRun) await waitForStack(clients.cloudFormation, ["DELETE_COMPLETE"], poll);
  }

  result.deletedParameters = await deleteParameters(clients);

  if (dryRun) return result;
  await verifyGone(clients, result, byName, options, bestEffort);
  return result;
}

/** The tool's SSM parameters (the iperf3 secrets and the server's status), by their path. */
async function deleteParameters(clients: AwsClients): Promise<string[]> {
  const names: string[] = [];
  const parameters = paginateGetParametersByPath(
    { client: clients.ssm },
    { Path: parameterPath, Recursive: true },
  );
  for await (const page of parameters)
    for (const parameter of page.Parameters ?? []) if (parameter.Name) names.push(parameter.Name);
  const deleted: string[] = [];
  for (let start = 0; start < names.length; start += 10) {
    const batch = names.slice(start, start + 10);
    await clients.ssm.send(new DeleteParametersCommand({ Names: batch }));
    deleted.push(...batch);
  }
  return deleted;
}

/**
 * The tagging API, the names and the schedules, asked until nothing is left (deletes and the
 * tagging API lag) or the attempts run out. A look-up the account denies is asked once, noted
 * as not verified, and left out of the later attempts.
 */
async function verifyGone(
  clients: AwsClients,
  result: TeardownResult,
  byName: NamedResource[],
  options: TeardownOptions,
  bestEffort: BestEffort,
): Promise<void> {
  const log = options.log ?? (() => {});
  const verify = options.verify ?? { attempts: 10, intervalMs: 15_000 };
  const denied = new Set<string>();
  const look = async <T>(what: string, permission: string, call: () => Promise<T>): Promise<T | null> => {
    if (denied.has(permission)) return null;
    const answer = await bestEffort(what, permission, call);
    if (answer === null) denied.add(permission);
    return answer;
  };
  for (let attempt = 1; attempt <= verify.attempts; attempt++) {
    const listed =
      (await look("not verified: nothing tagged lambda-netbench remains", "tag:GetResources", () =>
        listTaggedResources(clients),
      )) ?? [];
    const terminated = await terminatedInstanceArns(clients, listed);
    result.terminatedInstances = listed.filter((arn) => terminated.has(arn));
    result.remaining = listed.filter((arn) => !terminated.has(arn));
    result.remainingByName = [];
    const logGroups = await look("not verified: the log groups are gone", "logs:DescribeLogGroups", () =>
      existingLogGroups(clients),
    );
    for (const entry of byName) {
      if (entry.kind === "log-group") {
        if (logGroups?.has(entry.name)) result.remainingByName.push(`${entry.kind} ${entry.name}`);
        continue;
      }
      const permission = entry.kind === "role" ? "iam:GetRole" : "iam:GetInstanceProfile";
      if (
        await look(`not verified: ${entry.kind} ${entry.name} is gone`, permission, () =>
          stillExists(clients, entry),
        )
      )
        result.remainingByName.push(`${entry.kind} ${entry.name}`);
    }
    for (const name of logGroups ?? [])
      if (!byName.some((entry) => entry.kind === "log-group" && entry.name === name))
        result.remainingByName.push(`log-group ${name}`);
    const schedules = options.schedules;
    result.remainingSchedules = schedules
      ? ((await look("not verified: no schedule remains", "scheduler:ListSchedules", () =>
          schedules.remaining(),
        )) ?? [])
      : [];
    const left = result.remaining.length + result.remainingByName.length + result.remainingSchedules.length;
    if (left === 0) break;
    if (attempt < verify.attempts) {
      log(`${left} resource(s) still listed; checking again (deletion and the tagging API lag)`);
      await sleep(verify.intervalMs);
    }
  }
}

/**
 * A look-up that only verifies: its answer, or null when the account denies it, noted in
 * `notVerified` as `what` and the permission lacked.
 */
type BestEffort = <T>(what: string, permission: string, call: () => Promise<T>) => Promise<T | null>;

function lookUps(result: TeardownResult, log: (line: string) => void): BestEffort {
  return async (what, permission, call) => {
    try {
      return await call();
    } catch (error) {
      if (!isAccessDenied(error)) throw error;
      const lacked = deniedAction(error) ?? permission;
      const by = deniedByScp(error) ? " by a service control policy" : "";
      const note = `${what} (${lacked} denied${by}: ${errorName(error)})`;
      if (!result.notVerified.includes(note)) {
        result.notVerified.push(note);
        log(`warning: ${note}`);
      }
      return null;
    }
  };
}

type NamedResource = { kind: "role" | "instance-profile" | "log-group"; name: string };

/**
 * The stack's IAM roles, instance profiles and log groups, by physical name, and those of its
 * nested stacks (each schedule's: the recorder's log group, the recorder's, state machine's and
 * schedule's roles), which CloudFormation deletes with the region's stack.
 */
async function namedResources(clients: AwsClients, stack: string = stackName): Promise<NamedResource[]> {
  const kinds: Record<string, NamedResource["kind"]> = {
    "AWS::IAM::Role": "role",
    "AWS::IAM::InstanceProfile": "instance-profile",
    "AWS::Logs::LogGroup": "log-group",
  };
  const found: NamedResource[] = [];
  const nested: string[] = [];
  for await (const page of paginateListStackResources(
    { client: clients.cloudFormation },
    { StackName: stack },
  )) {
    for (const resource of page.StackResourceSummaries ?? []) {
      if (!resource.PhysicalResourceId) continue;
      // a nested stack's physical id is its stack ARN
      if (resource.ResourceType === "AWS::CloudFormation::Stack") nested.push(resource.PhysicalResourceId);
      const kind = kinds[resource.ResourceType ?? ""];
      if (kind) found.push({ kind, name: resource.PhysicalResourceId });
    }
  }
  for (const child of nested) {
    try {
      found.push(...(await namedResources(clients, child)));
    } catch (error) {
      // a nested stack already deleted (a teardown run again): nothing of it left to name
      if (!(errorName(error) === "ValidationError" && /does not exist/.test((error as Error).message)))
        throw error;
    }
  }
  return found;
}

/** Log groups of the agent and the schedules' recorders: `/aws/lambda/lambda-netbench-...`. */
const ourLogGroupPrefix = `/aws/lambda/${stackName}-`;

/** Every log group under our prefix that still exists (one listing covers them all). */
async function existingLogGroups(clients: AwsClients): Promise<Set<string>> {
  const names = new Set<string>();
  const pages = paginateDescribeLogGroups(
    { client: clients.logs },
    { logGroupNamePrefix: ourLogGroupPrefix },
  );
  for await (const page of pages)
    for (const group of page.logGroups ?? []) if (group.logGroupName) names.add(group.logGroupName);
  return names;
}

async function stillExists(clients: AwsClients, entry: NamedResource): Promise<boolean> {
  try {
    if (entry.kind === "role") await clients.iam.send(new GetRoleCommand({ RoleName: entry.name }));
    else if (entry.kind === "instance-profile")
      await clients.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: entry.name }));
    else return (await existingLogGroups(clients)).has(entry.name);
    return true;
  } catch (error) {
    if (errorName(error) === "NoSuchEntity" || errorName(error) === "NoSuchEntityException") return false;
    throw error;
  }
}
