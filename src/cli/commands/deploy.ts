import type { Command } from "commander";
import type { Architecture } from "../../plan/architecture.js";
import { buildAgentZip, type CodePackage } from "../../platforms/aws/agent-zip.js";
import type { AwsClients } from "../../platforms/aws/aws-clients.js";
import {
  AwsInputError,
  validateArchitecture,
  validateInstanceType,
  validateMemoryMb,
  validateNumberInRange,
  validateResourceId,
} from "../../platforms/aws/aws-input.js";
import type { DeployResult, ServerRequest } from "../../platforms/aws/deploy.js";
import type { OrganizationOptions } from "../../platforms/aws/organization.js";
import { buildStackTemplate } from "../../platforms/aws/stack-template.js";
import type { VpcRequest } from "../../platforms/aws/vpc-variant.js";
import { MAX_TEST_OBJECT_MIB } from "../../probes/s3/test-object-size.js";
import { formatCostEstimate } from "../../report/cost-text.js";
import { outputWidth } from "../../report/text-layout.js";
import { estimateCost } from "../../results/cost-estimate.js";
import type { SourcedPrice } from "../../results/price-table.js";
import { defaultServerInstanceType, defaultServerTtlHours } from "../../runner/run-estimate.js";
import { commandRegion, withAwsRegion, withProfile } from "./aws-options.js";
import { type AwsCommandDeps, openAwsSession } from "./aws-session.js";

interface DeployCliOptions {
  region?: string;
  profile?: string;
  arch: string;
  memoryMb: string;
  timeoutSeconds: string;
  withServer?: boolean;
  removeServer?: boolean;
  instanceType: string;
  ttlHours: string;
  serverPorts: string;
  testObjectMib: string;
  idleTimeoutSeconds: string;
  subnetId?: string;
  vpcId?: string;
  vpcSubnets?: string;
  vpcSecurityGroup?: string;
  removeVpc?: boolean;
  vpcOnly?: boolean;
  updateAmi?: boolean;
  serverUsdPerHour?: string;
  permissionsBoundary?: string;
  roleArn?: string;
  tags?: string;
  dryRun?: boolean;
  printTemplate?: boolean;
  printOperatorPolicy?: boolean;
}

/** `lambda-netbench deploy --region R`: creates or updates the region's stack. */
export function registerDeployCommand(program: Command, deps: AwsCommandDeps = {}): void {
  declareDeployOptions(
    withAwsRegion(
      program.command("deploy"),
      "AWS region, e.g. us-west-2 (not needed with --print-operator-policy)",
    ),
  ).action(async (options: DeployCliOptions) => {
    if (options.printOperatorPolicy) return printOperatorPolicy();
    const request = await deployRequest(options);
    if (options.printTemplate) return printTemplate(request);
    await deploy(request, options, deps);
  });
}

function declareDeployOptions(command: Command): Command {
  return command
    .description("create or update the region's stack: bucket, agent function, optional iperf3 server")
    .option("--arch <arch>", "function architecture: arm64 or x86_64", "arm64")
    .option("--memory-mb <mb>", "memory of $LATEST (each measured size gets its own version)", "2048")
    .option("--timeout-seconds <s>", "function timeout, 1-900", "900")
    .option("--with-server", "also deploy the iperf3 server on EC2 (RSA-authenticated)")
    .option(
      "--remove-server",
      "delete the running iperf3 server (a deploy without --with-server refuses to, before its TTL)",
    )
    .option("--instance-type <type>", "iperf3 server instance type", defaultServerInstanceType)
    .option(
      "--ttl-hours <h>",
      "the server terminates itself this many hours after this deploy (deploy again to extend)",
      String(defaultServerTtlHours),
    )
    .option("--server-ports <n>", "iperf3 servers on ports 5201.. (one test at a time per port)", "1")
    .option(
      "--idle-timeout-seconds <s>",
      "iperf3 --idle-timeout: a stalled test or a scanner frees the port after this long",
      "30",
    )
    .option("--subnet-id <id>", "public subnet for the server (accounts without a default VPC)")
    .option("--vpc-id <id>", "VPC for the server (a subnet of it is chosen) when there is no default VPC")
    .option(
      "--vpc-subnets <ids>",
      "also deploy the agent attached to these subnets of one VPC (comma-separated), for plans with `vpc: [false, true]`",
    )
    .option(
      "--vpc-security-group <id>",
      "the VPC function's security group (default: the stack creates one with no ingress)",
    )
    .option("--remove-vpc", "remove the VPC function (a deploy without --vpc-subnets keeps it)")
    .option(
      "--vpc-only",
      "deploy the VPC function alone, none outside a VPC (accounts that require Lambda in a VPC); needs --vpc-subnets, kept by later deploys",
    )
    .option("--no-vpc-only", "add the function outside a VPC again to a --vpc-only stack")
    .option("--update-ami", "move the server to the latest Amazon Linux 2023 AMI (replaces it)")
    .option("--server-usd-per-hour <usd>", "the server type's price, when the price table lacks it")
    .option("--test-object-mib <mib>", "size of the S3 test object the agent creates (0: none)", "1024")
    .option(
      "--permissions-boundary <arn>",
      "managed policy set as the permissions boundary of every role deployed (schedules' too); kept by later deploys",
    )
    .option("--role-arn <arn>", "CloudFormation service role to create, update and delete the stack with")
    .option(
      "--tags <k=v,...>",
      "tags on the stack and so on every resource (schedules' too), beside lambda-netbench",
    )
    .option("--dry-run", "print the calls deploy would make, change nothing")
    .option("--print-template", "print the CloudFormation template and exit (no AWS call)")
    .option(
      "--print-operator-policy",
      "print the least-privilege IAM policies (each within IAM's 6,144 characters) the person running quota/deploy/run/teardown needs, with how to attach them, and exit",
    );
}

/** `--print-operator-policy`: the policies on stdout (one JSON document), how to attach them on stderr. */
async function printOperatorPolicy(): Promise<void> {
  const { operatorPolicies, attachPoliciesHelp } = await import("../../platforms/aws/operator-policy.js");
  const policies = operatorPolicies();
  console.log(
    JSON.stringify(
      policies.map((policy) => ({ PolicyName: policy.name, PolicyDocument: policy.document })),
      null,
      2,
    ),
  );
  console.error(attachPoliciesHelp(policies.map((policy) => policy.name)));
}

/** Everything deploy takes from its options, checked before any AWS call. */
interface DeployRequest {
  region: string;
  arch: Architecture;
  memoryMb: number;
  timeoutSeconds: number;
  server: ServerRequest | null;
  serverUsdPerHour: number | undefined;
  testObjectMib: number;
  vpc: VpcRequest | null | undefined;
  /** `--vpc-only` / `--no-vpc-only`; undefined: what the stack has. */
  vpcOnly: boolean | undefined;
  organization: OrganizationOptions;
  agent: CodePackage;
}

async function deployRequest(options: DeployCliOptions): Promise<DeployRequest> {
  const region = await commandRegion(options.region, options.profile);
  if (options.withServer && options.removeServer)
    throw new AwsInputError("remove-server", "not with --with-server");
  // checked in this order: the first bad option is the one named
  const arch = validateArchitecture(options.arch);
  const memoryMb = validateMemoryMb(Number(options.memoryMb), "memory-mb");
  const timeoutSeconds = validateNumberInRange(options.timeoutSeconds, "timeout-seconds", 1, 900, true);
  const server = serverRequest(options);
  const serverUsdPerHour =
    options.serverUsdPerHour === undefined
      ? undefined
      : validateNumberInRange(options.serverUsdPerHour, "server-usd-per-hour", 0, 1000);
  const testObjectMib = validateNumberInRange(
    options.testObjectMib,
    "test-object-mib",
    0,
    MAX_TEST_OBJECT_MIB,
    true,
  );
  const vpc = await vpcRequest(options);
  if (options.vpcOnly === true && vpc === null) throw new AwsInputError("vpc-only", "not with --remove-vpc");
  const organization = await organizationOptions(options, server !== null);
  const agent = buildAgentZip();
  return {
    region,
    arch,
    memoryMb,
    timeoutSeconds,
    server,
    serverUsdPerHour,
    testObjectMib,
    vpc,
    vpcOnly: options.vpcOnly,
    organization,
    agent,
  };
}

/** `--with-server` and the server's options, or null without it. */
function serverRequest(options: DeployCliOptions): ServerRequest | null {
  if (!options.withServer) return null;
  return {
    instanceType: validateInstanceType(options.instanceType, "instance-type"),
    ttlHours: validateNumberInRange(options.ttlHours, "ttl-hours", 0.25, 72),
    ports: validateNumberInRange(options.serverPorts, "server-ports", 1, 16, true),
    idleTimeoutSeconds: validateNumberInRange(
      options.idleTimeoutSeconds,
      "idle-timeout-seconds",
      5,
      3600,
      true,
    ),
    ...(options.subnetId ? { subnetId: validateResourceId(options.subnetId, "subnet-id", "subnet") } : {}),
    ...(options.vpcId ? { vpcId: validateResourceId(options.vpcId, "vpc-id", "vpc") } : {}),
    updateAmi: options.updateAmi === true,
  };
}

/** `--print-template`: the template deploy would apply, with what it reads from the account as placeholders. */
async function printTemplate(request: DeployRequest): Promise<void> {
  const { withPermissionsBoundary } = await import("../../platforms/aws/organization.js");
  const { server, vpc } = request;
  if (request.vpcOnly && !vpc)
    throw new AwsInputError("vpc-only", "needs --vpc-subnets to print the template");
  const template = buildStackTemplate({
    agentCodeKey: request.agent.key,
    arch: request.arch,
    memoryMb: request.memoryMb,
    timeoutSeconds: request.timeoutSeconds,
    server: server
      ? {
          instanceType: server.instanceType,
          ports: server.ports,
          idleTimeoutSeconds: server.idleTimeoutSeconds,
          generation: 1,
          expiresAt: new Date(Date.now() + server.ttlHours * 3_600_000).toISOString(),
          // what deploy resolves from the account (shown as placeholders here)
          imageId: "<latest AL2023 AMI, pinned at deploy>",
          vpcId: server.vpcId ?? "<default VPC>",
          subnetId: server.subnetId ?? "<a subnet of the VPC>",
        }
      : null,
    // deploy looks the VPC up from the subnets (shown as a placeholder here)
    vpc: vpc ? { ...vpc, vpcId: "<the VPC of the subnets>" } : null,
    ...(request.vpcOnly ? { vpcOnly: true } : {}),
  });
  console.log(
    JSON.stringify(withPermissionsBoundary(template, request.organization.permissionsBoundaryArn), null, 2),
  );
}

/** The deploy itself (or its dry run): the server's cost first, then the stack, then what was made. */
async function deploy(
  request: DeployRequest,
  options: DeployCliOptions,
  deps: AwsCommandDeps,
): Promise<void> {
  const { deployStack } = await import("../../platforms/aws/deploy.js");
  const session = await openAwsSession(options.dryRun === true, withProfile(deps, options.profile));
  const clients = session.clientsFor(request.region);
  try {
    if (request.server)
      console.error(await serverCostEstimate(clients, request.server, request.serverUsdPerHour));
    const result = await deployStack(clients, {
      arch: request.arch,
      memoryMb: request.memoryMb,
      timeoutSeconds: request.timeoutSeconds,
      server: request.server,
      agent: request.agent,
      testObjectBytes: request.testObjectMib > 0 ? request.testObjectMib * 1_048_576 : null,
      ...(request.vpc !== undefined ? { vpc: request.vpc } : {}),
      ...(request.vpcOnly !== undefined ? { vpcOnly: request.vpcOnly } : {}),
      ...(options.removeServer ? { removeServer: true } : {}),
      organization: request.organization,
      ...(deps.pacing ? { stackPoll: deps.pacing.stackPoll, serverReady: deps.pacing.serverReady } : {}),
      log: (line) => console.error(line),
    });
    session.printPlan();
    if (result.dryRun) printDryRunVerdict(result);
    else printDeployed(result, request.region);
  } finally {
    session.release(clients);
  }
}

/** A dry run's last line; exit 1 when a check would be refused. */
function printDryRunVerdict(result: DeployResult): void {
  const denied = result.dryRunFindings.filter((finding) => finding.allowed === false);
  console.log(
    denied.length === 0
      ? "Dry run: the account's checks found nothing that would be refused"
      : `Dry run: ${denied.length} check(s) would be refused (above): nothing was created`,
  );
  if (denied.length > 0) process.exitCode = 1;
}

/** What the stack now holds. */
function printDeployed(result: DeployResult, region: string): void {
  console.log(`stack lambda-netbench in ${region}: ${result.action}`);
  console.log(`  bucket       ${result.bucket}`);
  console.log(`  agent code   s3://${result.bucket}/${result.agentCodeKey}`);
  if (result.vpcOnly) console.log("  vpc only     no function outside a VPC: plans run with `vpc: [true]`");
  if (result.testObjectKey) console.log(`  test object  ${result.testObjectKey}`);
  if (result.vpc)
    console.log(
      `  vpc agent    ${result.vpc.functionName} in ${result.vpc.vpcId} (${result.vpc.subnetIds.join(",")}), security group ${result.vpc.securityGroupId ?? "created by the stack, no ingress"}`,
    );
  if (result.server)
    console.log(
      `  iperf3       ${result.server.host} ports ${result.server.ports}, RSA auth (${result.server.padding ?? "not ready yet"}), terminates itself at ${result.server.expiresAt}`,
    );
}

/**
 * What the server costs for its time to live, before anything is created: the table's price, or
 * AWS's Price List API's where the table lacks the type (a read the dry run lists too).
 */
async function serverCostEstimate(
  clients: AwsClients,
  server: { instanceType: string; ttlHours: number },
  usdPerHourOverride: number | undefined,
): Promise<string> {
  const input = (listedPrice?: SourcedPrice) => ({
    region: clients.region,
    lambda: [],
    server: {
      instanceType: server.instanceType,
      hours: server.ttlHours,
      ...(usdPerHourOverride !== undefined ? { usdPerHourOverride } : {}),
      ...(listedPrice ? { listedPrice } : {}),
    },
    serverTransferBytes: 0,
  });
  const estimate = estimateCost(input());
  if (!estimate.missing.includes("ec2-server"))
    return formatCostEstimate(estimate, outputWidth(process.stderr));
  const { askServerHourPrice } = await import("../../platforms/aws/server-price.js");
  const listed = await askServerHourPrice(clients.pricing, {
    region: clients.region,
    instanceType: server.instanceType,
  });
  return formatCostEstimate(estimateCost(input(listed)), outputWidth(process.stderr));
}

/**
 * The VPC function's flags, checked before any AWS call: a request (`--vpc-subnets`), null
 * (`--remove-vpc`), or undefined (keep what the stack has).
 */
async function vpcRequest(
  options: Pick<DeployCliOptions, "vpcSubnets" | "vpcSecurityGroup" | "removeVpc">,
): Promise<VpcRequest | null | undefined> {
  if (options.removeVpc) {
    if (options.vpcSubnets !== undefined || options.vpcSecurityGroup !== undefined)
      throw new AwsInputError("remove-vpc", "not with --vpc-subnets or --vpc-security-group");
    return null;
  }
  if (options.vpcSubnets === undefined && options.vpcSecurityGroup === undefined) return undefined;
  const { parseVpcOptions } = await import("../../platforms/aws/vpc-variant.js");
  return parseVpcOptions(options.vpcSubnets, options.vpcSecurityGroup);
}

/** `--permissions-boundary`, `--role-arn`, `--tags`, checked before any AWS call. */
async function organizationOptions(
  options: Pick<DeployCliOptions, "permissionsBoundary" | "roleArn" | "tags">,
  withServer: boolean,
): Promise<OrganizationOptions> {
  const { checkMetadataTagKeys, parseTags, validatePolicyArn, validateRoleArn } = await import(
    "../../platforms/aws/organization.js"
  );
  // the server's instance takes the stack's tags, and reads them from its metadata
  if (withServer && options.tags !== undefined) checkMetadataTagKeys(parseTags(options.tags));
  return {
    ...(options.permissionsBoundary !== undefined
      ? { permissionsBoundaryArn: validatePolicyArn(options.permissionsBoundary, "permissions-boundary") }
      : {}),
    ...(options.roleArn !== undefined
      ? { serviceRoleArn: validateRoleArn(options.roleArn, "role-arn") }
      : {}),
    ...(options.tags !== undefined ? { tags: parseTags(options.tags) } : {}),
  };
}
