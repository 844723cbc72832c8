/**
 * Whether a VPC function in these subnets can reach S3 and the iperf3 server, from the
 * subnets' route tables (pure; the preflight fetches the inputs with DescribeSubnets,
 * DescribeRouteTables and DescribeVpcEndpoints). A Lambda ENI has no public address, so a
 * default route to an internet gateway does not help it: S3 needs a gateway endpoint (or a NAT),
 * and a server outside the VPC needs a NAT.
 */
export interface SubnetFacts {
  subnetId: string;
  vpcId: string;
}

export interface RouteTableFacts {
  vpcId: string;
  /** Subnets explicitly associated; `main` for the VPC's main table. */
  subnetIds: string[];
  main: boolean;
  routes: Array<{
    destinationCidr?: string;
    destinationPrefixListId?: string;
    gatewayId?: string;
    natGatewayId?: string;
    transitGatewayId?: string;
  }>;
}

export interface ServerFacts {
  vpcId: string | null;
  privateIp: string | null;
  publicIp: string | null;
}

export interface Reachability {
  problems: string[];
  notes: string[];
}

export function vpcReachability(input: {
  region: string;
  subnetIds: string[];
  subnets: SubnetFacts[];
  routeTables: RouteTableFacts[];
  /** Prefix lists of this region's S3 gateway endpoints attached to the VPC (com.amazonaws.REGION.s3). */
  s3PrefixListIds: string[];
  server: ServerFacts | null;
}): Reachability {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const subnetId of input.subnetIds) {
    const subnet = input.subnets.find((s) => s.subnetId === subnetId);
    if (!subnet) {
      problems.push(`vpc subnet ${subnetId}: not found in ${input.region}`);
      continue;
    }
    const table =
      input.routeTables.find((t) => t.subnetIds.includes(subnetId)) ??
      input.routeTables.find((t) => t.main && t.vpcId === subnet.vpcId);
    if (!table) {
      problems.push(`vpc subnet ${subnetId}: no route table found`);
      continue;
    }
    const natDefault = table.routes.some(
      (r) =>
        r.destinationCidr === "0.0.0.0/0" &&
        (r.natGatewayId !== undefined || r.transitGatewayId !== undefined),
    );
    const s3Endpoint = table.routes.some(
      (r) =>
        r.gatewayId?.startsWith("vpce-") === true &&
        r.destinationPrefixListId !== undefined &&
        input.s3PrefixListIds.includes(r.destinationPrefixListId),
    );
    if (s3Endpoint) notes.push(`vpc subnet ${subnetId}: reaches S3 through a gateway endpoint`);
    else if (natDefault)
      notes.push(`vpc subnet ${subnetId}: reaches S3 through a NAT (its bandwidth and per-GB charge apply)`);
    else
      problems.push(
        `vpc subnet ${subnetId}: no route to S3 — add an S3 gateway endpoint (com.amazonaws.${input.region}.s3) to its route table, or a NAT gateway default route (a route to an internet gateway does not work: Lambda ENIs have no public address)`,
      );
    if (input.server) {
      if (input.server.vpcId === subnet.vpcId && input.server.privateIp) {
        notes.push(
          `vpc subnet ${subnetId}: reaches the iperf3 server at its private address ${input.server.privateIp} (same VPC)`,
        );
      } else if (!natDefault) {
        problems.push(
          `vpc subnet ${subnetId}: cannot reach the iperf3 server (${input.server.publicIp ?? "no public address"}) outside its VPC without a NAT default route; deploy the server into ${subnet.vpcId} (deploy --with-server --subnet-id) or add a NAT`,
        );
      } else {
        notes.push(`vpc subnet ${subnetId}: reaches the iperf3 server's public address through a NAT`);
      }
    }
  }
  const vpcs = new Set(input.subnets.filter((s) => input.subnetIds.includes(s.subnetId)).map((s) => s.vpcId));
  if (vpcs.size > 1) problems.push(`vpc subnets: all must be in one VPC (found ${[...vpcs].join(", ")})`);
  return { problems, notes };
}
