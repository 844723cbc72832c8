import type { AgentEventInput } from "../../agent/event.js";
import { probeNamed } from "../../probes/registry.js";
import type { EnvironmentVariant } from "../../runner/platform.js";

/**
 * What AwsPlatform needs for the plan's `vpc: true` cells, without the SDK (pure): the refusal
 * when the stack has no VPC function, and the server address the VPC function uses.
 */

/** Why the VPC variants cannot run here (the stack has no VPC function), or null. */
export function vpcVariantProblem(
  variants: EnvironmentVariant[],
  outputs: Record<string, string>,
  region: string,
): string | null {
  if (outputs.VpcOnly === "true" && variants.some((variant) => !variant.vpc)) return vpcOnlyStack(region);
  if (!variants.some((variant) => variant.vpc) || outputs.VpcFunctionName) return null;
  return missingVpcFunction(region);
}

/** The stack holds only the VPC function (`deploy --vpc-only`): cells outside a VPC cannot run. */
export function vpcOnlyStack(region: string): string {
  return `vpc: the lambda-netbench stack in ${region} was deployed with --vpc-only (no function outside a VPC), but the plan runs cells outside a VPC: set the plan's \`vpc: [true]\`, or deploy without --vpc-only where the account allows a function outside a VPC`;
}

/** The stack has no VPC function: which deploy flags add it. */
export function missingVpcFunction(region: string): string {
  return `vpc: the plan runs cells in a VPC, but the lambda-netbench stack in ${region} has no VPC function: run \`lambda-netbench deploy --region ${region} --vpc-subnets subnet-...,subnet-... [--vpc-security-group sg-...]\` (the subnets must reach S3 and the iperf3 server), or drop \`true\` from the plan's \`vpc\``;
}

/**
 * A Lambda ENI has no public address: inside the server's VPC the VPC function reaches the
 * server at its private address (no NAT on the way, no NAT charge); elsewhere it keeps the
 * public name, reached through the subnets' NAT.
 */
export function vpcServerHost(event: AgentEventInput, outputs: Record<string, string>): AgentEventInput {
  if (probeNamed(event.probe)?.peer !== "iperf3-server" || !("host" in event)) return event;
  const sameVpc = outputs.VpcId !== undefined && outputs.VpcId === outputs.ServerVpcId;
  if (!sameVpc || !outputs.ServerPrivateIp) return event;
  return { ...event, host: outputs.ServerPrivateIp };
}
