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
import { AwsInputError } from "./aws-input-error.js";
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
  /**
   * `--vpc-only`: the VPC function alone, none outside a VPC (accounts whose policies require
   * Lambda in a VPC); false: both again; absent: what the stack has.
   */
  vpcOnly?: boolean;
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
  /** The VPC function alone (`--vpc-only`). */
  vpcOnly: boolean;
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
 * What a deploy and its dry run do differently, decided once (`deployMode`): the steps below
 * never ask whether this is a dry run. In a dry run the recorder holds back every call that
 * changes something, so there is nothing to wait for, no server to see boot and no function to
 * invoke; instead the account's guardrails are asked first whether they would let it be.
 */
interface DeployMode {
  dryRun: boolean;
  /** The stack once CloudFormation has reached one of `statuses` (a dry run: `predicted`). */
  settle(statuses: string[], predicted: StackState | null): Promise<StackState | null>;
  /** EC2's dry runs and the policy simulation before anything is created (a real deploy: none). */
  guardrails(server: DryRunServer | null, tags: ReturnType<typeof stackTags>): Promise<DryRunFinding[]>;
  /** The server once it reports ready (a dry run created none). */
  serverReady(outputs: Record<string, string>): Promise<DeployResult["server"]>;
  /** The S3 test object, written by the agent's s3-put (a dry run says what it would invoke). */
  testObject(bucket: string, bytes: number, agentFunctionName: string | undefined): Promise<string | null>;
}

type DryRunServer = NonNullable<Parameters<typeof deployDryRunChecks>[1]>;

function deployMode(clients: AwsClients, options: DeployOptions, log: (line: string) => void): DeployMode {
  const poll = options.stackPoll ?? { pollIntervalMs: 10_000, timeoutMs: 45 * 60_000 };
  if (clients.recorder.dryRun)
    return {
      dryRun: true,
      settle: async (_statuses, predicted) => predicted,
      guardrails: (server, tags) => deployDryRunChecks(clients, server, tags),
      serverReady: async () => null,
      testObject: async (_bucket, bytes) => {
        log(`would invoke the agent's s3-put for a ${bytes}-byte test object`);
        return null;
      },
    };
  return {
    dryRun: false,
    settle: (statuses) => waitForStack(clients.cloudFormation, statuses, poll),
    guardrails: async () => [],
    serverReady: (outputs) => waitForServerReady(clients, outputs, options.serverReady, log),
    testObject: (bucket, bytes, agentFunctionName) =>
      ensureTestObject(clients.s3, { bucket, region: clients.region }, bytes, (event) =>
        invokeAgent(
          clients.lambda,
          "$LATEST",
          event,
          agentFunctionName ? { functionName: agentFunctionName } : {},
        ),
      ),
  };
}

/**
 * The stack as it stands, ready for a deploy: one being changed stops here; a failed creation
 * (ROLLBACK_COMPLETE, which can only be deleted) is deleted first.
 */
async function usableStack(
  clients: AwsClients,
  mode: DeployMode,
  log: (line: string) => void,
): Promise<StackState | null> {
  const state = await describeStack(clients.cloudFormation);
  if (state?.status.endsWith("_IN_PROGRESS")) throw new StackBusyError(state.status);
  if (state?.status === "ROLLBACK_COMPLETE") {
    log(`stack ${stackName} is ROLLBACK_COMPLETE (a failed creation): deleting it before creating it again`);
    await clients.cloudFormation.send(new DeleteStackCommand({ StackName: stackName }));
    await mode.settle(["DELETE_COMPLETE"], null);
    return null;
  }
  if (state && /FAILED$/.test(state.status)) throw new StackBusyError(`${state.status} (needs attention)`);
  return state;
}

/** Where the server runs and from which AMI (reads only: a missing default VPC or a private subnet stops here). */
async function resolveServerSetup(
  clients: AwsClients,
  server: ServerRequest,
  previous: Record<string, string>,
  log: (line: string) => void,
): Promise<ServerSetup> {
  const network = await resolveServerNetwork(clients.ec2, server, previous, clients.region);
  const image = await resolveServerImage(
    clients.ssm,
    instanceArchitecture(server.instanceType),
    previous,
    server.updateAmi === true,
  );
  if (image.changed && previous.ServerImageId)
    log(`--update-ami: ${previous.ServerImageId} -> ${image.imageId} (the server is replaced)`);
  return { network, imageId: image.imageId };
}

interface ServerSetup {
  network: ServerNetwork;
  imageId: string;
}

/**
 * The VPC function this deploy applies: the request looked up (reads only: unknown subnets,
 * subnets of two VPCs or a group of another VPC stop here), none (`--remove-vpc`), or the
 * stack's own (a plain deploy keeps it).
 */
async function resolveVpc(
  clients: AwsClients,
  request: DeployOptions["vpc"],
  previous: Record<string, string>,
  log: (line: string) => void,
): Promise<VpcVariantOptions | null> {
  if (request) return resolveVpcVariant(clients.ec2, request, clients.region);
  if (request === null) return null;
  const kept = vpcVariantFromOutputs(previous);
  if (kept) log(`keeping the VPC function in ${kept.subnetIds.join(",")} (--remove-vpc drops it)`);
  return kept;
}

/**
 * Whether the stack holds the VPC function alone: as asked, else as the stack has it (a plain
 * deploy never adds a function outside a VPC to a `--vpc-only` stack). Needs the VPC function.
 */
function resolveVpcOnly(
  request: boolean | undefined,
  vpc: VpcVariantOptions | null,
  previous: Record<string, string>,
  log: (line: string) => void,
): boolean {
  const vpcOnly = request ?? previous.VpcOnly === "true";
  if (vpcOnly && !vpc)
    throw new AwsInputError(
      "vpc-only",
      "needs the VPC function: pass --vpc-subnets S1,S2 (subnets that reach S3 and the iperf3 server), not --remove-vpc",
    );
  if (vpcOnly && request === undefined)
    log("keeping the stack VPC-only (--no-vpc-only adds the function outside a VPC)");
  return vpcOnly;
}

/**
 * Before the stack changes: a new instance must fit the vCPU quota (the server it replaces is
 * removed first, so its vCPUs are not counted); the iperf3 secrets exist; a new instance's
 * "ready" must come from it, so the old status goes.
 */
async function prepareServer(
  clients: AwsClients,
  server: ServerRequest,
  plan: ServerPlan,
  previous: Record<string, string>,
  tags: ReturnType<typeof stackTags>,
  log: (line: string) => void,
): Promise<void> {
  if (plan.fresh)
    log((await checkServerVcpus(clients, server.instanceType, previous.ServerInstanceId)).detail);
  if (await ensureIperf3Secrets(clients.ssm, tags))
    log("generated the iperf3 RSA key pair and password (SSM SecureString)");
  if (!plan.fresh) return;
  try {
    await clients.ssm.send(new DeleteParameterCommand({ Name: iperf3StatusParameter }));
  } catch (error) {
    if (errorName(error) !== "ParameterNotFound") throw error;
  }
}

type ServerPlan = ReturnType<typeof planServer>;

/** The stack's template for an agent code key (null: the bucket only), with or without the server. Pure. */
function templateFor(
  options: DeployOptions,
  parts: {
    server: { plan: ServerPlan; setup: ServerSetup } | null;
    vpc: VpcVariantOptions | null;
    vpcOnly: boolean;
    /** The stack's tags, kept when no --tags is given (as CloudFormation does). */
    stackTagsNow: StackState["tags"];
    previous: Record<string, string>;
  },
): (agentCodeKey: string | null, withServer?: boolean) => CfnTemplate {
  const organization = options.organization ?? {};
  // a deploy without --permissions-boundary keeps the one the stack has (like the VPC function)
  const boundary = organization.permissionsBoundaryArn ?? parts.previous[permissionsBoundaryOutput];
  const serverOptions = (): StackTemplateOptions["server"] => {
    if (!options.server || !parts.server) return null;
    const { plan, setup } = parts.server;
    return {
      instanceType: options.server.instanceType,
      ports: options.server.ports,
      idleTimeoutSeconds: options.server.idleTimeoutSeconds,
      generation: plan.generation,
      expiresAt: plan.expiresAt,
      imageId: setup.imageId,
      ...setup.network,
      organizationTags: organization.tags ?? parts.stackTagsNow ?? [],
    };
  };
  return (agentCodeKey, withServer = true) => {
    const built = withPermissionsBoundary(
      buildStackTemplate({
        agentCodeKey,
        arch: options.arch,
        memoryMb: options.memoryMb,
        timeoutSeconds: options.timeoutSeconds,
        server: withServer ? serverOptions() : null,
        vpc: parts.vpc,
        ...(parts.vpcOnly ? { vpcOnly: true } : {}),
      }),
      boundary,
    );
    if (boundary) built.Outputs[permissionsBoundaryOutput] = { Value: boundary };
    return built;
  };
}

/** The CreateStack/UpdateStack fields every call shares. */
function stackCallOf(organization: OrganizationOptions) {
  return {
    StackName: stackName,
    Capabilities: ["CAPABILITY_IAM" as const],
    // without a RoleARN, CloudFormation keeps the stack's service role; without Tags, its tags
    ...(organization.serviceRoleArn ? { RoleARN: organization.serviceRoleArn } : {}),
  };
}

/** A new stack holds the bucket only at first: the function's code must be in it before the function. */
async function createBucketStack(
  clients: AwsClients,
  mode: DeployMode,
  template: CfnTemplate,
  organization: OrganizationOptions,
  log: (line: string) => void,
): Promise<StackState | null> {
  log(`creating stack ${stackName} (bucket first)`);
  await clients.cloudFormation.send(
    new CreateStackCommand({
      ...stackCallOf(organization),
      Tags: stackTags(organization),
      TemplateBody: JSON.stringify(template),
    }),
  );
  return mode.settle(["CREATE_COMPLETE"], { status: "CREATE_COMPLETE", outputs: {}, stackId: stackName });
}

/** The agent zip in the bucket, named by its SHA-256 (new code, new key); true when it was uploaded now. */
async function uploadAgent(
  clients: AwsClients,
  bucket: string,
  agent: CodePackage,
  bucketExists: boolean,
  log: (line: string) => void,
): Promise<boolean> {
  try {
    // a dry run of a first deploy has no bucket yet: nothing to look at
    if (!bucketExists) throw Object.assign(new Error("no bucket yet"), { name: "NoSuchBucket" });
    await clients.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: agent.key }));
    return false;
  } catch (error) {
    if (!["NotFound", "NoSuchKey", "NoSuchBucket"].includes(errorName(error))) throw error;
  }
  log(`uploading the agent (${agent.zip.length} bytes) to s3://${bucket}/${agent.key}`);
  await clients.s3.send(
    new PutObjectCommand({ Bucket: bucket, Key: agent.key, Body: agent.zip, ContentType: "application/zip" }),
  );
  return true;
}

/**
 * One UpdateStack with this template, settled. The schedules' nested stacks stay; "No updates are
 * to be performed" is not a failure.
 */
async function updateStack(
  clients: AwsClients,
  mode: DeployMode,
  template: CfnTemplate,
  state: StackState | null,
  stackCall: Omit<UpdateStackCommandInput, "TemplateBody">,
): Promise<{ state: StackState | null; changed: boolean }> {
  try {
    await clients.cloudFormation.send(
      new UpdateStackCommand({
        ...stackCall,
        TemplateBody: JSON.stringify(keepScheduleStacks(template, state?.outputs ?? {})),
      }),
    );
  } catch (error) {
    if (!isNoUpdatesError(error)) throw error;
    return { state, changed: false };
  }
  return { state: await mode.settle(["UPDATE_COMPLETE"], state), changed: true };
}

/**
 * The full template applied. A new server goes in an update of its own after the function's: a
 * new instance that EC2 refuses (VcpuLimitExceeded, PendingVerification) then rolls back only
 * the server's update.
 */
async function applyTemplate(
  clients: AwsClients,
  mode: DeployMode,
  template: ReturnType<typeof templateFor>,
  state: StackState | null,
  update: {
    agentCodeKey: string;
    freshServer: boolean;
    organization: OrganizationOptions;
    log: (line: string) => void;
  },
): Promise<{ state: StackState | null; changed: boolean }> {
  const { organization } = update;
  const stackCall = {
    ...stackCallOf(organization),
    ...(organization.tags ? { Tags: stackTags(organization) } : {}),
  };
  let changed = false;
  if (update.freshServer) {
    update.log("updating the function first; the iperf3 server follows in its own stack update");
    const functionFirst = await updateStack(
      clients,
      mode,
      template(update.agentCodeKey, false),
      state,
      stackCall,
    );
    state = functionFirst.state;
    changed = functionFirst.changed;
  }
  const full = await updateStack(clients, mode, template(update.agentCodeKey), state, stackCall);
  return { state: full.state, changed: changed || full.changed };
}

/** Polls until this instance's watchdog saw every port answer an iperf3 handshake. */
async function waitForServerReady(
  clients: AwsClients,
  outputs: Record<string, string>,
  pacing: DeployOptions["serverReady"],
  log: (line: string) => void,
): Promise<NonNullable<DeployResult["server"]>> {
  const ready = pacing ?? { pollIntervalMs: 10_000, timeoutMs: 15 * 60_000 };
  const instanceId = outputs.ServerInstanceId ?? "";
  const deadline = Date.now() + ready.timeoutMs;
  const current = async () => {
    const status = await readServerStatus(clients.ssm);
    return status && status.instanceId === instanceId && status.ports === outputs.ServerPorts ? status : null;
  };
  let status = await current();
  if (status === null) log(`waiting for the iperf3 server ${instanceId} to answer on ${outputs.ServerPorts}`);
  while (status === null && Date.now() < deadline) {
    await sleep(ready.pollIntervalMs);
    status = await current();
  }
  if (status === null) throw new ServerNotReadyError(Math.round(ready.timeoutMs / 60_000), instanceId);
  const versionAdvice = iperf3VersionAdvice(status.version);
  if (versionAdvice) log(`warning: ${versionAdvice}`);
  return {
    host: outputs.ServerPublicDnsName || outputs.ServerPublicIp || "",
    ports: outputs.ServerPorts ?? "",
    expiresAt: outputs.ServerExpiresAt ?? "",
    padding: status.padding,
  };
}

/**
 * Creates or updates the region's stack, in named steps: the stack as it stands; the server's
 * network and AMI and the VPC function looked up (reads only); in a dry run the guardrails
 * asked; the server's generation planned and its secrets prepared; a new stack created with the
 * bucket only; the agent zip uploaded; the full template applied; the server waited for; the
 * test object written. How a dry run differs is the mode's (`deployMode`), not the steps'.
 */
export async function deployStack(clients: AwsClients, options: DeployOptions): Promise<DeployResult> {
  const log = options.log ?? (() => {});
  const now = options.now ?? (() => new Date());
  const mode = deployMode(clients, options, log);
  const organization = options.organization ?? {};
  let state = await usableStack(clients, mode, log);
  const previous = state?.outputs ?? {};
  refuseSilentServerRemoval(previous, options, now);
  const serverSetup = options.server
    ? await resolveServerSetup(clients, options.server, previous, log)
    : null;
  const vpc = await resolveVpc(clients, options.vpc, previous, log);
  const vpcOnly = resolveVpcOnly(options.vpcOnly, vpc, previous, log);
  // before anything is created: would the account's guardrails let it be?
  const dryRunFindings = await mode.guardrails(
    options.server && serverSetup
      ? {
          instanceType: options.server.instanceType,
          imageId: serverSetup.imageId,
          network: serverSetup.network,
        }
      : null,
    stackTags(organization),
  );
  for (const finding of dryRunFindings) log(`dry run: ${finding.detail}`);
  const serverPlan =
    options.server && serverSetup
      ? planServer(
          previous,
          { ...options.server, imageId: serverSetup.imageId, subnetId: serverSetup.network.subnetId },
          now(),
        )
      : null;
  if (options.server && serverPlan)
    await prepareServer(clients, options.server, serverPlan, previous, stackTags(organization), log);
  const template = templateFor(options, {
    server: serverPlan && serverSetup ? { plan: serverPlan, setup: serverSetup } : null,
    vpc,
    vpcOnly,
    stackTagsNow: state?.tags,
    previous,
  });

  const created = !state;
  if (!state) state = await createBucketStack(clients, mode, template(null), organization, log);
  const bucket = state?.outputs.BucketName ?? "<BucketName output of the new stack>";
  const uploaded = await uploadAgent(clients, bucket, options.agent, Boolean(state?.outputs.BucketName), log);
  const applied = await applyTemplate(clients, mode, template, state, {
    agentCodeKey: options.agent.key,
    freshServer: serverPlan?.fresh === true,
    organization,
    log,
  });
  const outputs = applied.state?.outputs ?? {};
  const server = options.server ? await mode.serverReady(outputs) : null;
  const testObjectKey =
    options.testObjectBytes !== null
      ? await mode.testObject(bucket, options.testObjectBytes, outputs.FunctionName)
      : null;
  return {
    action: created ? "created" : applied.changed || uploaded ? "updated" : "unchanged",
    bucket,
    agentCodeKey: options.agent.key,
    server,
    testObjectKey,
    vpc: vpc ? { ...vpc, functionName: vpcFunctionName } : null,
    vpcOnly,
    dryRun: mode.dryRun,
    dryRunFindings,
  };
}
