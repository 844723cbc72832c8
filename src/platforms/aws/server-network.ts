import {
  DescribeInstanceTypeOfferingsCommand,
  DescribeRouteTablesCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  type EC2Client,
  type RouteTable,
  type Subnet,
} from "@aws-sdk/client-ec2";
import { GetParameterCommand, type SSMClient } from "@aws-sdk/client-ssm";
import type { Architecture } from "../../plan/architecture.js";
import { AwsInputError } from "./aws-input.js";
import { amiParameterName } from "./server-template.js";

/**
 * Where the iperf3 server runs and from which image, decided by deploy (reads only) before it
 * changes anything:
 * - network: `--subnet-id` (its VPC looked up), or `--vpc-id` (a subnet of it chosen), or the
 *   one the stack already uses, or the default VPC. Accounts without a default VPC get an error
 *   naming the flags. The subnet must route 0.0.0.0/0 to an internet gateway, or Lambda could
 *   not reach the server's public address, and be in a zone that offers the instance type (not
 *   every zone offers every type: c8gn.large is missing from some). With `--vpc-id`, the ranked
 *   subnets are tried in turn until one routes to an internet gateway.
 * - image: resolved once from AWS's public AL2023 parameter and pinned in the stack's outputs;
 *   re-resolved only with `--update-ami` (or for another architecture).
 */
export interface ServerNetwork {
  vpcId: string;
  subnetId: string;
}

export async function resolveServerNetwork(
  ec2: EC2Client,
  requested: { instanceType: string; subnetId?: string | undefined; vpcId?: string | undefined },
  previous: Record<string, string>,
  region: string,
): Promise<ServerNetwork> {
  let subnet: Subnet | undefined;
  if (requested.subnetId) {
    const found = await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [requested.subnetId] }));
    subnet = found.Subnets?.[0];
    if (!subnet?.VpcId) throw new AwsInputError("subnet-id", `${requested.subnetId} not found in ${region}`);
    if (requested.vpcId && subnet.VpcId !== requested.vpcId)
      throw new AwsInputError(
        "subnet-id",
        `${requested.subnetId} is in ${subnet.VpcId}, not in --vpc-id ${requested.vpcId}`,
      );
    const zones = await zonesOffering(ec2, requested.instanceType);
    if (!zones.includes(subnet.AvailabilityZone ?? ""))
      throw new AwsInputError(
        "subnet-id",
        `${requested.subnetId} is in ${subnet.AvailabilityZone}, which does not offer ${requested.instanceType} (${offeredIn(zones, region)}): pick a subnet of another zone, or another --instance-type`,
      );
  } else {
    let vpcId = requested.vpcId;
    if (!vpcId && previous.ServerSubnetId && previous.ServerVpcId)
      return { vpcId: previous.ServerVpcId, subnetId: previous.ServerSubnetId };
    if (!vpcId) {
      const vpcs = await ec2.send(
        new DescribeVpcsCommand({ Filters: [{ Name: "is-default", Values: ["true"] }] }),
      );
      vpcId = vpcs.Vpcs?.[0]?.VpcId;
      if (!vpcId)
        throw new AwsInputError(
          "subnet-id",
          `${region} has no default VPC: pass --subnet-id subnet-... (a public subnet: its route table sends 0.0.0.0/0 to an internet gateway) or --vpc-id vpc-...`,
        );
    }
    const subnets = await ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: "vpc-id", Values: [vpcId] }] }),
    );
    const zones = await zonesOffering(ec2, requested.instanceType);
    const all = subnets.Subnets ?? [];
    const offered = all.filter((candidate) => zones.includes(candidate.AvailabilityZone ?? ""));
    if (all.length > 0 && offered.length === 0)
      throw new AwsInputError(
        "instance-type",
        `no subnet of ${vpcId} is in a zone that offers ${requested.instanceType} (${offeredIn(zones, region)}): pass --subnet-id of a public subnet there, or another --instance-type`,
      );
    // prefer the default subnets of the default VPC, then subnets that give public addresses
    const ranked = [...offered]
      .filter((candidate) => candidate.SubnetId)
      .sort(
        (a, b) =>
          Number(b.DefaultForAz ?? false) - Number(a.DefaultForAz ?? false) ||
          Number(b.MapPublicIpOnLaunch ?? false) - Number(a.MapPublicIpOnLaunch ?? false) ||
          (a.AvailabilityZone ?? "").localeCompare(b.AvailabilityZone ?? ""),
      );
    if (ranked.length === 0)
      throw new AwsInputError(
        "vpc-id",
        `${vpcId} has no subnet in ${region}: pass --subnet-id of a public subnet`,
      );
    // the first ranked subnet that is public: a private one ranked higher is passed over, not fatal
    const routes = routeChecker(ec2, vpcId);
    for (const candidate of ranked)
      if (await routes.reachesInternetGateway(candidate.SubnetId as string)) {
        subnet = candidate;
        break;
      }
    if (!subnet)
      throw new AwsInputError(
        "vpc-id",
        `no subnet of ${vpcId} in a zone offering ${requested.instanceType} routes 0.0.0.0/0 to an internet gateway (${ranked.map((candidate) => candidate.SubnetId).join(", ")}): Lambda could not reach the server; pass --subnet-id of a public subnet`,
      );
    return { vpcId, subnetId: subnet.SubnetId as string };
  }
  const subnetId = subnet.SubnetId as string;
  const vpcId = subnet.VpcId as string;
  if (!(await routeChecker(ec2, vpcId).reachesInternetGateway(subnetId)))
    throw new AwsInputError(
      "subnet-id",
      `${subnetId} has no route 0.0.0.0/0 to an internet gateway: Lambda could not reach the server; pick a public subnet with --subnet-id`,
    );
  return { vpcId, subnetId };
}

/** The availability zones of the region that offer the instance type. */
async function zonesOffering(ec2: EC2Client, instanceType: string): Promise<string[]> {
  const zones: string[] = [];
  let token: string | undefined;
  do {
    const page = await ec2.send(
      new DescribeInstanceTypeOfferingsCommand({
        LocationType: "availability-zone",
        Filters: [{ Name: "instance-type", Values: [instanceType] }],
        NextToken: token,
      }),
    );
    for (const offering of page.InstanceTypeOfferings ?? [])
      if (offering.Location) zones.push(offering.Location);
    token = page.NextToken;
  } while (token);
  return zones.sort();
}

function offeredIn(zones: string[], region: string): string {
  return zones.length > 0 ? `offered in ${zones.join(", ")}` : `offered in no zone of ${region}`;
}

/** Whether a subnet's own route table, or else the VPC's main one (read once), sends 0.0.0.0/0 to an igw-. */
function routeChecker(ec2: EC2Client, vpcId: string) {
  let main: Promise<RouteTable | undefined> | undefined;
  const mainTable = () => {
    main ??= ec2
      .send(
        new DescribeRouteTablesCommand({
          Filters: [
            { Name: "vpc-id", Values: [vpcId] },
            { Name: "association.main", Values: ["true"] },
          ],
        }),
      )
      .then((response) => response.RouteTables?.[0]);
    return main;
  };
  return {
    async reachesInternetGateway(subnetId: string): Promise<boolean> {
      const own = await ec2.send(
        new DescribeRouteTablesCommand({ Filters: [{ Name: "association.subnet-id", Values: [subnetId] }] }),
      );
      const table = own.RouteTables?.[0] ?? (await mainTable());
      return (table?.Routes ?? []).some(
        (route) => route.DestinationCidrBlock === "0.0.0.0/0" && (route.GatewayId ?? "").startsWith("igw-"),
      );
    },
  };
}

/** The AMI to run: the pinned one unless `--update-ami` (or another architecture). */
export async function resolveServerImage(
  ssm: SSMClient,
  arch: Architecture,
  previous: Record<string, string>,
  updateAmi: boolean,
): Promise<{ imageId: string; changed: boolean }> {
  const pinned = previous.ServerImageId;
  const sameArch = previous.ServerImageArch === undefined || previous.ServerImageArch === arch;
  if (pinned && !updateAmi && sameArch) return { imageId: pinned, changed: false };
  const response = await ssm.send(new GetParameterCommand({ Name: amiParameterName(arch) }));
  const imageId = response.Parameter?.Value;
  if (!imageId?.startsWith("ami-")) throw new Error(`${amiParameterName(arch)} did not return an AMI id`);
  return { imageId, changed: imageId !== pinned };
}
