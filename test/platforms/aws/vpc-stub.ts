import { ec2Xml, type StubResponse } from "./aws-stub.js";

/**
 * EC2's answers (its own query protocol, XML) to the reads of the VPC function: subnets, route
 * tables with their associations and routes, S3 gateway endpoints, security groups with egress
 * rules. The element names are EC2's (`subnetSet`, `routeTableSet`, `associationSet`,
 * `vpcEndpointSet`, `routeTableIdSet`, `securityGroupInfo`, `ipPermissionsEgress`...).
 */
export const vpcId = "vpc-0a1b2c3d4e5f60718";
export const otherVpcId = "vpc-0ffff0000eeee1111";
export const subnetA = "subnet-0aaa1111bbbb22223";
export const subnetB = "subnet-0ccc3333dddd44445";
export const userGroup = "sg-0123456789abcdef0";
export const s3PrefixList = "pl-68a54001";
export const s3Endpoint = "vpce-0a1b2c3d4e5f60718";

export function subnets(list: Array<{ subnetId: string; vpcId: string }>): StubResponse {
  return ec2Xml(
    "DescribeSubnets",
    `<subnetSet>${list
      .map(
        (s, i) =>
          `<item><subnetId>${s.subnetId}</subnetId><subnetArn>arn:aws:ec2:us-west-2:123456789012:subnet/${s.subnetId}</subnetArn><state>available</state><vpcId>${s.vpcId}</vpcId><cidrBlock>10.0.${i}.0/24</cidrBlock><availableIpAddressCount>250</availableIpAddressCount><availabilityZone>us-west-2${"abc"[i % 3]}</availabilityZone><defaultForAz>false</defaultForAz><mapPublicIpOnLaunch>false</mapPublicIpOnLaunch><ownerId>123456789012</ownerId></item>`,
      )
      .join("")}</subnetSet>`,
  );
}

export interface Route {
  cidr?: string;
  prefixList?: string;
  gateway?: string;
  nat?: string;
  state?: "active" | "blackhole";
}

export function routeTables(
  tables: Array<{ id: string; main?: boolean; subnets?: string[]; routes: Route[]; vpc?: string }>,
): StubResponse {
  const route = (r: Route) =>
    `<item>${r.cidr ? `<destinationCidrBlock>${r.cidr}</destinationCidrBlock>` : ""}${r.prefixList ? `<destinationPrefixListId>${r.prefixList}</destinationPrefixListId>` : ""}${r.gateway ? `<gatewayId>${r.gateway}</gatewayId>` : ""}${r.nat ? `<natGatewayId>${r.nat}</natGatewayId>` : ""}<state>${r.state ?? "active"}</state><origin>CreateRoute</origin></item>`;
  const association = (tableId: string, subnetId: string | null, index: number) =>
    `<item><routeTableAssociationId>rtbassoc-0${index}a1b2c3d4e5f6071</routeTableAssociationId><routeTableId>${tableId}</routeTableId>${subnetId ? `<subnetId>${subnetId}</subnetId><main>false</main>` : "<main>true</main>"}<associationState><state>associated</state></associationState></item>`;
  return ec2Xml(
    "DescribeRouteTables",
    `<routeTableSet>${tables
      .map(
        (t) =>
          `<item><routeTableId>${t.id}</routeTableId><vpcId>${t.vpc ?? vpcId}</vpcId><ownerId>123456789012</ownerId><routeSet><item><destinationCidrBlock>10.0.0.0/16</destinationCidrBlock><gatewayId>local</gatewayId><state>active</state><origin>CreateRouteTable</origin></item>${t.routes.map(route).join("")}</routeSet><associationSet>${[
            ...(t.main ? [association(t.id, null, 0)] : []),
            ...(t.subnets ?? []).map((s, i) => association(t.id, s, i + 1)),
          ].join("")}</associationSet><propagatingVgwSet/><tagSet/></item>`,
      )
      .join("")}</routeTableSet>`,
  );
}

export function s3Endpoints(list: Array<{ id: string; routeTableIds: string[] }>): StubResponse {
  return ec2Xml(
    "DescribeVpcEndpoints",
    `<vpcEndpointSet>${list
      .map(
        (e) =>
          `<item><vpcEndpointId>${e.id}</vpcEndpointId><vpcEndpointType>Gateway</vpcEndpointType><vpcId>${vpcId}</vpcId><serviceName>com.amazonaws.us-west-2.s3</serviceName><state>available</state><policyDocument>{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}</policyDocument><routeTableIdSet>${e.routeTableIds.map((id) => `<item>${id}</item>`).join("")}</routeTableIdSet><subnetIdSet/><groupSet/><privateDnsEnabled>false</privateDnsEnabled><requesterManaged>false</requesterManaged><networkInterfaceIdSet/><dnsEntrySet/><creationTimestamp>2026-11-01T10:00:00.000Z</creationTimestamp><tagSet/><ownerId>123456789012</ownerId></item>`,
      )
      .join("")}</vpcEndpointSet>`,
  );
}

export interface Egress {
  protocol: string;
  from?: number;
  to?: number;
  cidrs?: string[];
  prefixLists?: string[];
}

export function securityGroups(list: Array<{ id: string; vpc?: string; egress: Egress[] }>): StubResponse {
  const rule = (e: Egress) =>
    `<item><ipProtocol>${e.protocol}</ipProtocol>${e.from !== undefined ? `<fromPort>${e.from}</fromPort>` : ""}${e.to !== undefined ? `<toPort>${e.to}</toPort>` : ""}<groups/><ipRanges>${(e.cidrs ?? []).map((c) => `<item><cidrIp>${c}</cidrIp></item>`).join("")}</ipRanges><ipv6Ranges/><prefixListIds>${(e.prefixLists ?? []).map((p) => `<item><prefixListId>${p}</prefixListId></item>`).join("")}</prefixListIds></item>`;
  return ec2Xml(
    "DescribeSecurityGroups",
    `<securityGroupInfo>${list
      .map(
        (g) =>
          `<item><ownerId>123456789012</ownerId><groupId>${g.id}</groupId><groupName>lambda-netbench-vpc</groupName><groupDescription>test</groupDescription><vpcId>${g.vpc ?? vpcId}</vpcId><ipPermissions/><ipPermissionsEgress>${g.egress.map(rule).join("")}</ipPermissionsEgress></item>`,
      )
      .join("")}</securityGroupInfo>`,
  );
}

export const allEgress: Egress[] = [{ protocol: "-1", cidrs: ["0.0.0.0/0"] }];
