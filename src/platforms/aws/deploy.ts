import {
  CreateStackCommand,
  DeleteStackCommand,
  UpdateStackCommand,
  type UpdateStackCommandInput,
} from "@aws-sdk/client-cloudformation";
import { HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { DeleteParameterCommand } from "@aws-sdk/client-ssm";
import type { Architecture } from "../../plan/architecture.js";
import type { CodePackage } from "./agent-zip.js";
import type { AwsClients } from "./aws-clients.js";
import { errorName } from "./backoff.js";
import { type DryRunFinding, deployDryRunChecks } from "./deploy-dry-run.js";
import { checkServerVcpus } from "./ec2-vcpu-quota.js";
import { ensureIperf3Secrets, readServerStatus } from "./iperf3-credentials.js";
import { iperf3VersionAdvice } from "./iperf3-version.js";
import { invokeAgent } from "./lambda-invoker.js";
import { iperf3StatusParameter, stackName } from "./naming.js";
import { keepScheduleStacks } from "./nested-stacks.js";
import {
  type OrganizationOptions,
  permissionsBoundaryOutput,
  stackTags,
  withPermissionsBoundary,
} from "./organization.js";
import { resolveServerImage, resolveServerNetwork, type ServerNetwork } from "./server-network.js";
import { describeStack, isNoUpdatesError, type StackState, waitForStack } from "./stack-state.js";
import {
  buildStackTemplate,
  type CfnTemplate,
  instanceArchitecture,
  type StackTemplateOptions,
} from "./stack-template.js";
import { ensureTestObject } from "./test-object.js";
import {
  resolveVpcVariant,
  type VpcRequest,
  type VpcVariantOptions,
  vpcFunctionName,
  vpcVariantFromOutputs,
} from "./vpc-variant.js";

/** What `deploy --with-server` asks for. */
export interface ServerRequest {
  instanceType: string;
  ttlHours: number;
  ports: number;
  idleTimeoutSeconds: number;
  subnetId?: string;
  vpcId?: string;
  /** Re-resolve the AMI (otherwise the one pinned at the first deploy stays). */
  updateAmi?: boolean;
}

export interface DeployOptions {
  arch: Architecture;
  memoryMb: number;
  timeoutSeconds: number;
  server: ServerRequest | null;
  agent: CodePackage;
  /** Size of the S3 test object to create with the agent's s3-put (null: none). */
  testObjectBytes: number | null;
  /**
   * The agent's VPC variant (`--vpc-subnets`): a request adds or changes it, null removes it
   * (`--remove-vpc`), absent keeps what the stack has (a plain `deploy` never drops it).
   */
  vpc?: VpcRequest | null;
  /** Boundary, service role and tags an organization requires (none by default). */
  organization?: OrganizationOptions;
  /** With `server: null`, delete a running server (`--remove-server`); otherwise deploy refuses. */
  removeServer?: boolean;
  now?: () => Date;
  stackPoll?: { pollIntervalMs: number; timeoutMs: number };
  serverReady?: { pollIntervalMs: number; timeoutMs: number };
  log?: (line: string) => void;
}

export interface DeployResult {
  action: "created" | "updated" | "unchanged";
  bucket: string;
  agentCodeKey: string;
  server: { host: string; ports: string; expiresAt: string; padding: string | null } | null;
  testObjectKey: string | null;
  /** The VPC function in the template this deploy applied, or null. */
  vpc: (VpcVariantOptions & { functionName: string }) | null;
  dryRun: boolean;
  /** `--dry-run` only: what EC2's dry runs and the policy simulator said. */
  dryRunFindings: DryRunFinding[];
}

/** The server did not report ready (every port answering an iperf3 handshake) in time. */
export class ServerNotReadyError extends Error {
  constructor(minutes: number, instanceId: string) {
    super(
      `the iperf3 server ${instanceId} did not report ready within ${minutes} minutes: its boot log is /var/log/lambda-netbench-boot.log (aws ssm start-session --target ${instanceId}); \`deploy\` again to keep waiting, or \`teardown\``,
    );
    this.name = "ServerNotReadyError";
  }
}

/** A deploy without the server would delete the one the stack runs: refused unless asked for. */
export class ServerWouldBeRemovedError extends Error {
  constructor(instanceId: string, expiresAt: string | undefined) {
    super(
      `the stack runs the iperf3 server ${instanceId}${expiresAt ? ` (until ${expiresAt})` : ""}: deploy --with-server to keep it, or --remove-server to delete it`,
    );
    this.name = "ServerWouldBeRemovedError";
  }
}

export class StackBusyError extends Error {
  constructor(status: string) {
    super(`stack ${stackName} is ${status}: wait until it finishes, or run \`lambda-netbench teardown\``);
    this.name = "StackBusyError";
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Decides the server's generation and time-to-live. The time-to-live is an instance tag, so
 * every deploy sets it to now + ttlHours in place (extending a running server). A new
 * generation (a deliberate replacement, with the old "ready" status removed) only when there is
 * no server, the old one has terminated or is about to, or its type, image or subnet changes.
 */
export function planServer(
  previous: Record<string, string>,
  server: { instanceType: string; ttlHours: number; imageId: string; subnetId: string },
  now: Date,
): { generation: number; expiresAt: string; fresh: boolean } {
  const generation = Number(previous.ServerGeneration ?? "0");
  const previousExpiry = previous.ServerExpiresAt ? Date.parse(previous.ServerExpiresAt) : Number.NaN;
  const expiresAt = new Date(now.getTime() + server.ttlHours * 3_600_000).toISOString();
  const keep =
    generation > 0 &&
    previousExpiry - now.getTime() > 5 * 60_000 &&
    previous.ServerInstanceType === server.instanceType &&
    (previous.ServerImageId === undefined || previous.ServerImageId === server.imageId) &&
    (previous.ServerSubnetId === undefined || previous.ServerSubnetId === server.subnetId);
  return keep
    ? { generation, expiresAt, fresh: false }
    : { generation: generation + 1, expiresAt, fresh: true };
}

/**
 * A deploy without `--with-server` drops the server from the template: refused while it is alive
 * (before its time-to-live), unless `--remove-server` says that is the intent.
 */
function refuseSilentServerRemoval(
  previous: Record<string, string>,
  options: Pick<DeployOptions, "server" | "removeServer">,
  now: () => Date,
): void {
  const instanceId = previous.ServerInstanceId;
  if (options.server || options.removeServer || !instanceId) return;
  const expiresAt = previous.ServerExpiresAt;
  if (expiresAt && Date.parse(expiresAt) <= now().getTime()) return;
  throw new ServerWouldBeRemovedError(instanceId, expiresAt);
}

/**
 * One UpdateStack with this template, waited for (not in a dry run, where the recorder holds it
 * back). The schedules' nested stacks stay; "No updates are to be performed" is not a failure.
 */
async function updateStack(
  cfn: AwsClients["cloudFormation"],
  template: CfnTemplate,
  state: StackState | null,
  update: {
    stackCall: Omit<UpdateStackCommandInput, "TemplateBody">;
    dryRun: boolean;
    poll: { pollIntervalMs: number; timeoutMs: number };
  },
): Promise<{ state: StackState | null; changed: boolean }> {
  try {
    await cfn.send(
      new UpdateStackCommand({
        ...update.stackCall,
        TemplateBody: JSON.stringify(keepScheduleStacks(template, state?.outputs ?? {})),
      }),
    );
  } catch (error) {
    if (!isNoUpdatesError(error)) throw error;
    return { state, changed: false };
  }
  return {
    state: update.dryRun ? state : await waitForStack(cfn, ["UPDATE_COMPLETE"], update.poll),
    changed: true,
  };
}

/**
 * Creates or updates the region's stack. First pass (new stack): the bucket only, since the
 * function's code must already be in it; then the agent zip is uploaded (named by its
 * SHA-256, so new code means a new key and an update) and the full template applied.
 */
export async function deployStack(clients: AwsClients, options: DeployOptions): Promise<DeployResult> {
  const log = options.log ?? (() => {});
  const dryRun = clients.recorder.dryRun;
  const poll = options.stackPoll ?? { pollIntervalMs: 10_000, timeoutMs: 45 * 60_000 };
  const cfn = clients.cloudFormation;
  let state: StackState | null = await describeStack(cfn);
  if (state?.status.endsWith("_IN_PROGRESS")) throw new StackBusyError(state.status);
  if (state?.status === "ROLLBACK_COMPLETE") {
    // a failed creation leaves a stack that can only be deleted
    log(`stack ${stackName} is ROLLBACK_COMPLETE (a failed creation): deleting it before creating it again`);
    await cfn.send(new DeleteStackCommand({ StackName: stackName }));
    if (!dryRun) await waitForStack(cfn, ["DELETE_COMPLETE"], poll);
    state = null;
  } else if (state && /FAILED$/.test(state.status))
    throw new StackBusyError(`${state.status} (needs attention)`);

  const previous = state?.outputs ?? {};
  refuseSilentServerRemoval(previous, options, options.now ?? (() => new Date()));
  let serverSetup: { network: ServerNetwork; imageId: string } | null = null;
  if (options.server) {
    // reads only, before any change: a missing default VPC or a private subnet stops here
    const network = await resolveServerNetwork(clients.ec2, options.server, previous, clients.region);
    const image = await resolveServerImage(
      clients.ssm,
      instanceArchitecture(options.server.instanceType),
      previous,
      options.server.updateAmi === true,
    );
    if (image.changed && previous.ServerImageId)
      log(`--update-ami: ${previous.ServerImageId} -> ${image.imageId} (the server is replaced)`);
    serverSetup = { network, imageId: image.imageId };
  }
  // reads only too: unknown subnets, subnets of two VPCs or a group of another VPC stop here
  let vpc: VpcVariantOptions | null;
  if (options.vpc) vpc = await resolveVpcVariant(clients.ec2, options.vpc, clients.region);
  else if (options.vpc === null) vpc = null;
  else {
    vpc = vpcVariantFromOutputs(previous);
    if (vpc) log(`keeping the VPC function in ${vpc.subnetIds.join(",")} (--remove-vpc drops it)`);
  }
  const organization = options.organization ?? {};
  // before anything is created: would the account's guardrails let it be?
  const dryRunFindings = dryRun
    ? await deployDryRunChecks(
        clients,
        options.server && serverSetup
          ? {
              instanceType: options.server.instanceType,
              imageId: serverSetup.imageId,
              network: serverSetup.network,
            }
          : null,
        stackTags(organization),
      )
    : [];
  for (const finding of dryRunFindings) log(`dry run: ${finding.detail}`);
  const serverPlan =
    options.server && serverSetup
      ? planServer(
          previous,
          { ...options.server, imageId: serverSetup.imageId, subnetId: serverSetup.network.subnetId },
          (options.now ?? (() => new Date()))(),
        )
      : null;
  if (options.server && serverPlan?.fresh) {
    // a new instance: refused here, before any change, when it does not fit the vCPU quota (the
    // server this one replaces is removed first, so its vCPUs are not counted)
    const vcpus = await checkServerVcpus(clients, options.server.instanceType, previous.ServerInstanceId);
    log(vcpus.detail);
  }
  if (options.server && serverPlan) {
    if (await ensureIperf3Secrets(clients.ssm, stackTags(organization)))
      log("generated the iperf3 RSA key pair and password (SSM SecureString)");
    if (serverPlan.fresh) {
      try {
        await clients.ssm.send(new DeleteParameterCommand({ Name: iperf3StatusParameter }));
      } catch (error) {
        if (errorName(error) !== "ParameterNotFound") throw error;
      }
    }
  }
  const templateOptions = (agentCodeKey: string | null, withServer: boolean): StackTemplateOptions => ({
    agentCodeKey,
    arch: options.arch,
    memoryMb: options.memoryMb,
    timeoutSeconds: options.timeoutSeconds,
    server:
      withServer && options.server && serverPlan && serverSetup
        ? {
            instanceType: options.server.instanceType,
            ports: options.server.ports,
            idleTimeoutSeconds: options.server.idleTimeoutSeconds,
            generation: serverPlan.generation,
            expiresAt: serverPlan.expiresAt,
            imageId: serverSetup.imageId,
            ...serverSetup.network,
            // a deploy without --tags keeps the stack's (as CloudFormation does)
            organizationTags: organization.tags ?? state?.tags ?? [],
          }
        : null,
    vpc,
  });
  // a deploy without --permissions-boundary keeps the one the stack has (like the VPC function)
  const boundary = organization.permissionsBoundaryArn ?? previous[permissionsBoundaryOutput];
  const template = (agentCodeKey: string | null, withServer = true): CfnTemplate => {
    const built = withPermissionsBoundary(
      buildStackTemplate(templateOptions(agentCodeKey, withServer)),
      boundary,
    );
    if (boundary) built.Outputs[permissionsBoundaryOutput] = { Value: boundary };
    return built;
  };
  const stackCall = {
    StackName: stackName,
    Capabilities: ["CAPABILITY_IAM" as const],
    // without a RoleARN, CloudFormation keeps the stack's service role; without Tags, its tags
    ...(organization.serviceRoleArn ? { RoleARN: organization.serviceRoleArn } : {}),
  };

  let action: DeployResult["action"] = "updated";
  if (!state) {
    log(`creating stack ${stackName} (bucket first)`);
    await cfn.send(
      new CreateStackCommand({
        ...stackCall,
        Tags: stackTags(organization),
        TemplateBody: JSON.stringify(template(null)),
      }),
    );
    action = "created";
    state = dryRun
      ? { status: "CREATE_COMPLETE", outputs: {}, stackId: stackName }
      : await waitForStack(cfn, ["CREATE_COMPLETE"], poll);
  }
  const bucket = state?.outputs.BucketName ?? "<BucketName output of the new stack>";
  const agentCodeKey = options.agent.key;
  let uploaded = false;
  try {
    // a dry run of a first deploy has no bucket yet: nothing to look at
    if (!state?.outputs.BucketName) throw Object.assign(new Error("no bucket yet"), { name: "NoSuchBucket" });
    await clients.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: agentCodeKey }));
  } catch (error) {
    if (!["NotFound", "NoSuchKey", "NoSuchBucket"].includes(errorName(error))) throw error;
    log(`uploading the agent (${options.agent.zip.length} bytes) to s3://${bucket}/${agentCodeKey}`);
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: agentCodeKey,
        Body: options.agent.zip,
        ContentType: "application/zip",
      }),
    );
    uploaded = true;
  }
  const update = {
    stackCall: { ...stackCall, ...(organization.tags ? { Tags: stackTags(organization) } : {}) },
    dryRun,
    poll,
  };
  let changed = false;
  if (serverPlan?.fresh) {
    // the function first, in an update of its own: a new server that EC2 refuses
    // (VcpuLimitExceeded, PendingVerification) then rolls back only the server's update
    log("updating the function first; the iperf3 server follows in its own stack update");
    const functionFirst = await updateStack(cfn, template(agentCodeKey, false), state, update);
    state = functionFirst.state;
    changed = functionFirst.changed;
  }
  const full = await updateStack(cfn, template(agentCodeKey), state, update);
  state = full.state;
  if (!full.changed && !changed && action !== "created" && !uploaded) action = "unchanged";
  const outputs = state?.outputs ?? {};

  let server: DeployResult["server"] = null;
  if (options.server && !dryRun) {
    const ready = options.serverReady ?? { pollIntervalMs: 10_000, timeoutMs: 15 * 60_000 };
    const instanceId = outputs.ServerInstanceId ?? "";
    const deadline = Date.now() + ready.timeoutMs;
    // ready = this instance's watchdog saw every port answer an iperf3 handshake
    const current = async () => {
      const status = await readServerStatus(clients.ssm);
      return status && status.instanceId === instanceId && status.ports === outputs.ServerPorts
        ? status
        : null;
    };
    let status = await current();
    if (status === null)
      log(`waiting for the iperf3 server ${instanceId} to answer on ${outputs.ServerPorts}`);
    while (status === null && Date.now() < deadline) {
      await sleep(ready.pollIntervalMs);
      status = await current();
    }
    if (status === null) throw new ServerNotReadyError(Math.round(ready.timeoutMs / 60_000), instanceId);
    const versionAdvice = iperf3VersionAdvice(status.version);
    if (versionAdvice) log(`warning: ${versionAdvice}`);
    server = {
      host: outputs.ServerPublicDnsName || outputs.ServerPublicIp || "",
      ports: outputs.ServerPorts ?? "",
      expiresAt: outputs.ServerExpiresAt ?? "",
      padding: status.padding,
    };
  }

  let testObjectKey: string | null = null;
  if (options.testObjectBytes !== null) {
    if (dryRun) log(`would invoke the agent's s3-put for a ${options.testObjectBytes}-byte test object`);
    else
      testObjectKey = await ensureTestObject(
        clients.s3,
        { bucket, region: clients.region },
        options.testObjectBytes,
        (event) => invokeAgent(clients.lambda, "$LATEST", event),
      );
  }
  return {
    action,
    bucket,
    agentCodeKey,
    server,
    testObjectKey,
    vpc: vpc ? { ...vpc, functionName: vpcFunctionName } : null,
    dryRun,
    dryRunFindings,
  };
}
