import type { ContextEntry } from "@aws-sdk/client-iam";
import { operatorPolicy } from "./operator-policy.js";

/**
 * What the dry run hands IAM's policy simulator, one request per statement of the operator
 * policy: the statement's actions, a resource the tool really acts on (the statement's first
 * resource pattern, its region and account filled in and its wildcards given a name), and the
 * context the real calls carry (the region, the stack's tags as request tags, the values the
 * statement's own conditions test). Without them the simulator evaluates every action against
 * "*" with no context, and so reports a policy scoped by resource or by tag (the printed one
 * included) as denying what it allows.
 */
export interface SimulationRequest {
  actions: string[];
  /** Omitted where the statement's resource is "*" (the simulator's own default). */
  resourceArns?: string[];
  contextEntries: ContextEntry[];
}

export interface SimulationContext {
  partition: string;
  region: string;
  account: string;
  tags: Array<{ Key: string; Value: string }>;
}

/** One statement's resource pattern as an ARN of one resource it matches. */
export function concreteArn(pattern: string, context: SimulationContext): string | undefined {
  if (pattern === "*") return undefined;
  const [, , service, region, account, ...rest] = pattern.split(":");
  const resource = rest.join(":").replaceAll("*", "x");
  return [
    "arn",
    context.partition,
    service,
    region === "*" ? context.region : region,
    account === "*" ? context.account : account,
    resource,
  ].join(":");
}

export function simulationRequests(context: SimulationContext): SimulationRequest[] {
  const shared: ContextEntry[] = [
    { ContextKeyName: "aws:RequestedRegion", ContextKeyType: "string", ContextKeyValues: [context.region] },
    ...context.tags.map(
      (tag): ContextEntry => ({
        ContextKeyName: `aws:RequestTag/${tag.Key}`,
        ContextKeyType: "string",
        ContextKeyValues: [tag.Value],
      }),
    ),
    {
      ContextKeyName: "aws:TagKeys",
      ContextKeyType: "stringList",
      ContextKeyValues: context.tags.map((tag) => tag.Key),
    },
  ];
  return operatorPolicy().Statement.map((statement) => {
    const patterns = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
    const arn = patterns[0] === undefined ? undefined : concreteArn(patterns[0], context);
    // the values the statement's conditions test are what the tool's calls carry (our own tag,
    // the service a role is passed to): the first of each, as one real call carries one
    const own: ContextEntry[] = Object.values(statement.Condition ?? {}).flatMap((tests) =>
      Object.entries(tests).map(([key, values]) => ({
        ContextKeyName: key,
        ContextKeyType: "string" as const,
        ContextKeyValues: [Array.isArray(values) ? String(values[0]) : values],
      })),
    );
    const names = new Set(own.map((entry) => entry.ContextKeyName));
    return {
      actions: [...statement.Action].sort(),
      ...(arn ? { resourceArns: [arn] } : {}),
      contextEntries: [...shared.filter((entry) => !names.has(entry.ContextKeyName)), ...own],
    };
  });
}

/**
 * The IAM role ARNs an assumed-role ARN from STS may stand for, most likely first. STS drops the
 * role's path, which the simulator needs: a role of IAM Identity Center lives under
 * /aws-reserved/sso.amazonaws.com/ (with Identity Center's region in the path where its home
 * region is not us-east-1), a plain role most often at /. `knownPath` is the path IAM's GetRole
 * gave, when it could be read.
 */
export function principalArnCandidates(callerArn: string, region: string, knownPath?: string): string[] {
  const assumed = /^arn:(aws[\w-]*):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(callerArn);
  if (!assumed) return [callerArn];
  const [, partition, account, name] = assumed;
  const arn = (path: string) => `arn:${partition}:iam::${account}:role${path}${name}`;
  if (knownPath) return [arn(knownPath)];
  if (name?.startsWith("AWSReservedSSO_"))
    return [
      arn(`/aws-reserved/sso.amazonaws.com/${region}/`),
      arn("/aws-reserved/sso.amazonaws.com/"),
      ...["us-east-1", "us-west-2", "eu-west-1", "eu-central-1"]
        .filter((home) => home !== region)
        .map((home) => arn(`/aws-reserved/sso.amazonaws.com/${home}/`)),
    ];
  return [arn("/")];
}
