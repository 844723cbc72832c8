import {
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcEndpointsCommand,
  type EC2Client,
} from "@aws-sdk/client-ec2";
import { GetFunctionConfigurationCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import { parsePorts } from "./aws-platform.js";

/**
 * Whether the VPC function in its subnets can reach S3 and the iperf3 server: the subnets'
 * route tables, the VPC's S3 gateway endpoints and the function's security group egress.
 * `vpcReachability` is pure; `describeVpcReachability` fetches its inputs (reads only:
 * DescribeSubnets, DescribeRouteTables, DescribeVpcEndpoints, DescribeSecurityGroups, and
 * GetFunctionConfiguration for the function's state). A Lambda ENI has no public address, so a
 * default route to an internet gateway does not help it: S3 needs a gateway endpoint (or a NAT),
 * and a server outside the VPC needs a NAT.
 */
export interface SubnetFacts {
  subnetId: string;
  vpcId: string;
}

export interface RouteFacts {
  destinationCidr?: string;
  destinationPrefixListId?: string;
  gatewayId?: string;
  natGatewayId?: string;
  transitGatewayId?: string;
  instanceId?: string;
  networkInterfaceId?: string;
  /** "blackhole" when the target is gone (a deleted NAT gateway). */
  state?: string;
}

export interface RouteTableFacts {
  routeTableId: string;
  vpcId: string;
  /** Subnets explicitly associated. */
  subnetIds: string[];
  /** The VPC's main table: it serves every subnet without an explicit association. */
  main: boolean;
  routes: RouteFacts[];
}

/** A gateway endpoint for this region's S3 in the VPC, and the route tables it was added to. */
export interface S3EndpointFacts {
  endpointId: string;
  routeTableIds: string[];
}

export interface EgressRuleFacts {
  /** "-1" for every protocol, else "tcp" / "6", "udp"... */
  ipProtocol: string;
  fromPort?: number;
  toPort?: number;
  cidrs: string[];
  prefixListIds: string[];
  groupIds: string[];
}

export interface SecurityGroupFacts {
  groupId: string;
  vpcId: string;
  egress: EgressRuleFacts[];
}

export interface ServerFacts {
  vpcId: string | null;
  privateIp: string | null;
  publicIp: string | null;
  /** The iperf3 ports (one per test at once). */
  ports: number[];
}

export interface Reachability {
  problems: string[];
  notes: string[];
}

const httpsPort = 443;

export function vpcReachability(input: {
  region: string;
  subnetIds: string[];
  subnets: SubnetFacts[];
  routeTables: RouteTableFacts[];
  s3Endpoints: S3EndpointFacts[];
  /** The function's security group; null when it could not be read (a problem of its own). */
  securityGroup: SecurityGroupFacts | null;
  /** The iperf3 server, or null when the plan has no iperf3 cell here. */
  server: ServerFacts | null;
}): Reachability {
  const problems: string[] = [];
  const notes: string[] = [];
  const endpointIds = new Set(input.s3Endpoints.map((e) => e.endpointId));
  // the prefix lists the endpoint routes point at are S3's addresses in this region
  const s3PrefixLists = new Set<string>();
  let serverRoute: "private" | "nat" | null = null;
  let s3Reached = false;
  for (const subnetId of input.subnetIds) {
    const subnet = input.subnets.find((s) => s.subnetId === subnetId);
    if (!subnet) {
      problems.push(`subnet ${subnetId}: not found in ${input.region}`);
      continue;
    }
    const table =
      input.routeTables.find((t) => t.subnetIds.includes(subnetId)) ??
      input.routeTables.find((t) => t.main && t.vpcId === subnet.vpcId);
    if (!table) {
      problems.push(`subnet ${subnetId}: no route table found`);
      continue;
    }
    const live = table.routes.filter((r) => r.state !== "blackhole");
    const dead = table.routes.filter((r) => r.state === "blackhole");
    const defaultRoute = live.find((r) => r.destinationCidr === "0.0.0.0/0");
    const deadDefault = dead.find((r) => r.destinationCidr === "0.0.0.0/0");
    const nat = defaultRoute?.natGatewayId !== undefined;
    // a transit gateway, a NAT instance or an appliance may lead out; this check cannot see past it
    const otherDefault =
      defaultRoute !== undefined &&
      !nat &&
      (defaultRoute.transitGatewayId ?? defaultRoute.instanceId ?? defaultRoute.networkInterfaceId) !==
        undefined;
    const endpointRoutes = live.filter(
      (r) => r.gatewayId !== undefined && endpointIds.has(r.gatewayId) && r.destinationPrefixListId,
    );
    for (const route of endpointRoutes) s3PrefixLists.add(route.destinationPrefixListId as string);
    const viaEndpoint =
      endpointRoutes.length > 0 ||
      input.s3Endpoints.some((e) => e.routeTableIds.includes(table.routeTableId));
    const where = `subnet ${subnetId} (${table.routeTableId})`;
    if (viaEndpoint) {
      s3Reached = true;
      notes.push(`${where}: S3 through the gateway endpoint`);
    } else if (nat) {
      s3Reached = true;
      notes.push(
        `${where}: S3 through NAT gateway ${defaultRoute?.natGatewayId} (its throughput and per-GB processing charge apply; an S3 gateway endpoint avoids both)`,
      );
    } else if (otherDefault) {
      s3Reached = true;
      notes.push(
        `${where}: S3 through ${defaultRoute?.transitGatewayId ?? defaultRoute?.instanceId ?? defaultRoute?.networkInterfaceId} (not checked beyond it)`,
      );
    } else
      problems.push(
        `${where}: no route to S3 — add an S3 gateway endpoint (com.amazonaws.${input.region}.s3) to this route table, or a default route to a NAT gateway${
          defaultRoute?.gatewayId?.startsWith("igw-")
            ? ` (its default route goes to ${defaultRoute.gatewayId}, an internet gateway: Lambda ENIs have no public address, so that does not work)`
            : deadDefault
              ? ` (its default route to ${deadDefault.natGatewayId ?? deadDefault.gatewayId ?? "?"} is a blackhole: the target is gone)`
              : ""
        }`,
      );
    if (input.server) {
      if (input.server.vpcId === subnet.vpcId && input.server.privateIp) {
        serverRoute = "private";
        notes.push(`${where}: the iperf3 server at its private address ${input.server.privateIp} (same VPC)`);
      } else if (input.server.vpcId === subnet.vpcId && !nat && !otherDefault) {
        // a stack deployed before the server's private address was an output
        problems.push(
          `${where}: the iperf3 server is in this VPC but the stack does not give its private address: run \`lambda-netbench deploy --region ${input.region} --with-server\` again`,
        );
      } else if (nat || otherDefault) {
        serverRoute ??= "nat";
        notes.push(`${where}: the iperf3 server's public address through the default route`);
      } else
        problems.push(
          `${where}: cannot reach the iperf3 server (${input.server.publicIp ?? "no public address"}, outside ${subnet.vpcId}) without a NAT default route: deploy the server into this VPC (deploy --with-server --subnet-id <a public subnet of ${subnet.vpcId}>) or add a NAT gateway`,
        );
    }
  }
  const vpcs = new Set(input.subnets.filter((s) => input.subnetIds.includes(s.subnetId)).map((s) => s.vpcId));
  if (vpcs.size > 1) problems.push(`subnets: all must be in one VPC (found ${[...vpcs].join(", ")})`);

  const group = input.securityGroup;
  if (group) {
    const where = `security group ${group.groupId}`;
    if (s3Reached) {
      const allowed = group.egress.some(
        (rule) =>
          allowsPort(rule, httpsPort) &&
          (rule.cidrs.some((cidr) => cidr === "0.0.0.0/0") ||
            rule.prefixListIds.some((id) => s3PrefixLists.has(id))),
      );
      if (allowed) notes.push(`${where}: egress to S3 on 443`);
      else
        problems.push(
          `${where}: no egress rule lets HTTPS (tcp 443) out to S3: allow 0.0.0.0/0${s3PrefixLists.size > 0 ? ` or the S3 prefix list ${[...s3PrefixLists].join(", ")}` : ""} on tcp 443`,
        );
    }
    if (input.server && serverRoute !== null) {
      const address = serverRoute === "private" ? input.server.privateIp : input.server.publicIp;
      const blocked = input.server.ports.filter(
        (port) =>
          !group.egress.some(
            (rule) =>
              allowsPort(rule, port) && rule.cidrs.some((cidr) => address !== null && inCidr(address, cidr)),
          ),
      );
      const byGroup = group.egress.some((rule) => rule.groupIds.length > 0);
      if (blocked.length === 0) notes.push(`${where}: egress to the iperf3 server (${address}) on its ports`);
      else if (byGroup && serverRoute === "private")
        notes.push(
          `${where}: egress to the server's ports only through a security-group rule (not checked here)`,
        );
      else
        problems.push(
          `${where}: no egress rule lets tcp ${formatPorts(blocked)} out to the iperf3 server (${address ?? "no address"}): allow it (or 0.0.0.0/0)`,
        );
    }
  }
  return { problems, notes };
}

function allowsPort(rule: EgressRuleFacts, port: number): boolean {
  if (rule.ipProtocol === "-1") return true;
  if (rule.ipProtocol !== "tcp" && rule.ipProtocol !== "6") return false;
  return (rule.fromPort ?? 0) <= port && port <= (rule.toPort ?? 65_535);
}

function ipv4(address: string): number | null {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return null;
  return (
    (((parts[0] as number) << 24) |
      ((parts[1] as number) << 16) |
      ((parts[2] as number) << 8) |
      (parts[3] as number)) >>>
    0
  );
}

/** Whether an IPv4 address is inside a CIDR block such as 10.0.0.0/16. */
export function inCidr(address: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split("/");
  const bits = Number(bitsText);
  const a = ipv4(address);
  const b = ipv4(base ?? "");
  if (a === null || b === null || !(bits >= 0 && bits <= 32)) return false;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (a & mask) >>> 0 === (b & mask) >>> 0;
}

function formatPorts(ports: number[]): string {
  if (ports.length === 1) return String(ports[0]);
  return `${ports[0]}-${ports[ports.length - 1]}`;
}

/** The VPC function as the preflight sees it: its state and why the subnets do or do not reach out. */
export interface VpcFunctionReport extends Reachability {
  /** Lambda's State of the function (Active, Pending, Inactive, Failed) and its reason. */
  state: string | null;
  stateReason: string | null;
}

/**
 * Fetches the inputs of `vpcReachability` for the stack's VPC function (its outputs name the
 * function, VPC, subnets and security group) and evaluates them. Reads only; any failed call
 * throws (the preflight reports it as a failed item).
 */
export async function describeVpcReachability(
  clients: { ec2: EC2Client; lambda: LambdaClient },
  outputs: Record<string, string>,
  region: string,
  needsServer: boolean,
): Promise<VpcFunctionReport> {
  const vpcId = outputs.VpcId as string;
  const subnetIds = (outputs.VpcSubnetIds ?? "").split(",").filter((s) => s.length > 0);
  const groupId = outputs.VpcSecurityGroupId;
  const [subnets, tables, endpoints, groups, configuration] = await Promise.all([
    clients.ec2.send(new DescribeSubnetsCommand({ SubnetIds: subnetIds })),
    clients.ec2.send(new DescribeRouteTablesCommand({ Filters: [{ Name: "vpc-id", Values: [vpcId] }] })),
    clients.ec2.send(
      new DescribeVpcEndpointsCommand({
        Filters: [
          { Name: "vpc-id", Values: [vpcId] },
          { Name: "service-name", Values: [`com.amazonaws.${region}.s3`] },
          { Name: "vpc-endpoint-type", Values: ["Gateway"] },
        ],
      }),
    ),
    groupId
      ? clients.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))
      : Promise.resolve({ SecurityGroups: [] }),
    clients.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: outputs.VpcFunctionName })),
  ]);
  const group = groups.SecurityGroups?.[0];
  const result = vpcReachability({
    region,
    subnetIds,
    subnets: (subnets.Subnets ?? []).map((s) => ({ subnetId: s.SubnetId ?? "", vpcId: s.VpcId ?? "" })),
    routeTables: (tables.RouteTables ?? []).map((table) => ({
      routeTableId: table.RouteTableId ?? "",
      vpcId: table.VpcId ?? "",
      subnetIds: (table.Associations ?? []).flatMap((a) => (a.SubnetId ? [a.SubnetId] : [])),
      main: (table.Associations ?? []).some((a) => a.Main === true),
      routes: (table.Routes ?? []).map((r) => ({
        ...(r.DestinationCidrBlock ? { destinationCidr: r.DestinationCidrBlock } : {}),
        ...(r.DestinationPrefixListId ? { destinationPrefixListId: r.DestinationPrefixListId } : {}),
        ...(r.GatewayId ? { gatewayId: r.GatewayId } : {}),
        ...(r.NatGatewayId ? { natGatewayId: r.NatGatewayId } : {}),
        ...(r.TransitGatewayId ? { transitGatewayId: r.TransitGatewayId } : {}),
        ...(r.InstanceId ? { instanceId: r.InstanceId } : {}),
        ...(r.NetworkInterfaceId ? { networkInterfaceId: r.NetworkInterfaceId } : {}),
        ...(r.State ? { state: r.State } : {}),
      })),
    })),
    s3Endpoints: (endpoints.VpcEndpoints ?? [])
      .filter((e) => e.State === undefined || e.State.toLowerCase() === "available")
      .map((e) => ({ endpointId: e.VpcEndpointId ?? "", routeTableIds: e.RouteTableIds ?? [] })),
    securityGroup: group
      ? {
          groupId: group.GroupId ?? "",
          vpcId: group.VpcId ?? "",
          egress: (group.IpPermissionsEgress ?? []).map((rule) => ({
            ipProtocol: rule.IpProtocol ?? "-1",
            ...(rule.FromPort !== undefined ? { fromPort: rule.FromPort } : {}),
            ...(rule.ToPort !== undefined ? { toPort: rule.ToPort } : {}),
            cidrs: (rule.IpRanges ?? []).flatMap((r) => (r.CidrIp ? [r.CidrIp] : [])),
            prefixListIds: (rule.PrefixListIds ?? []).flatMap((p) =>
              p.PrefixListId ? [p.PrefixListId] : [],
            ),
            groupIds: (rule.UserIdGroupPairs ?? []).flatMap((g) => (g.GroupId ? [g.GroupId] : [])),
          })),
        }
      : null,
    server:
      needsServer && outputs.ServerPorts
        ? {
            vpcId: outputs.ServerVpcId ?? null,
            privateIp: outputs.ServerPrivateIp || null,
            publicIp: outputs.ServerPublicIp || null,
            ports: parsePorts(outputs.ServerPorts),
          }
        : null,
  });
  if (groupId && !group) result.problems.push(`security group ${groupId}: not found in ${region}`);
  const state = configuration.State ?? null;
  const stateReason = configuration.StateReason ?? null;
  if (state === "Failed")
    result.problems.push(
      `function ${outputs.VpcFunctionName}: Failed (${configuration.StateReasonCode ?? "?"}: ${stateReason ?? "no reason given"})`,
    );
  else if (state === "Inactive")
    result.notes.push(
      `function ${outputs.VpcFunctionName}: Inactive (idle for weeks; Lambda re-creates its network interfaces when the run publishes its versions)`,
    );
  return { ...result, state, stateReason };
}
