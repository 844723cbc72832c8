import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import {
  AttachInternetGatewayCommand,
  CreateInternetGatewayCommand,
  CreateRouteCommand,
  DescribeRouteTablesCommand,
  DescribeVpcsCommand,
  EC2Client,
} from "@aws-sdk/client-ec2";
import { LambdaClient, ListVersionsByFunctionCommand } from "@aws-sdk/client-lambda";
import { S3Client } from "@aws-sdk/client-s3";
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { SSMClient } from "@aws-sdk/client-ssm";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { addAddress } from "../../src/platforms/local/namespaces.js";
import { freeLoopbackPort } from "../helpers/free-port.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { AccountTicker } from "./account-ticker.js";
import type { SeenCall } from "./aws-faults.js";
import { type AccountSettings, type Front, startFront } from "./aws-front.js";
import { BandwidthQuota } from "./bandwidth-quota.js";
import { InstanceEmulator } from "./instance-emulator.js";
import { InvokeBridge } from "./invoke-bridge.js";
import { motoMissing, startMoto } from "./moto-process.js";
import { syncPlaceholderSchedules } from "./placeholder-schedules.js";
import { REHEARSAL_CREDENTIALS } from "./rehearsal-credentials.js";
import { listeningPort, listenToSocket, startNamespaceRelay, stopChild } from "./relays.js";

/**
 * The rehearsal: moto, our front for its gaps, the invoke bridge to a private lab and the
 * emulated server instance, composed and torn down together. With root the lab is shaped and
 * moto runs in the lab's cloud namespace (the region's endpoints, S3 among them, where the
 * environments reach them over their shaped links); without root the lab is unshaped and all of
 * it sits on loopback.
 */

export const REHEARSAL_REGION = "us-west-2";
export const MOTO_ACCOUNT_ID = "123456789012";
/** What the rehearsal's Price List answers for c8gn.large an hour: its own figure, not AWS's. */
export const REHEARSAL_SERVER_USD_PER_HOUR = "0.1000000000";
/**
 * The server instance's public address, on this machine's loopback (127/8 needs no set-up): one
 * per test file (each runs in its own process), since rehearsal files of two lanes run at once and
 * a shared 127.42.0.1:5201 met EADDRINUSE in a whole run (2026-12-03). Never 127.42.0.x.
 */
const addressIndex = process.pid % 60_000;
export const INSTANCE_PUBLIC_ADDRESS = `127.42.${1 + Math.floor(addressIndex / 250)}.${1 + (addressIndex % 250)}`;
/** The same instance inside the lab's cloud namespace, beside the lab's own servers at 198.18.0.1. */
const INSTANCE_LAB_ADDRESS = "198.18.0.2";
const MOTO_LAB_ADDRESS = "198.18.0.1";
const MOTO_LAB_PORT = 4566;

export interface Rehearsal {
  /** The environment a CLI child needs to talk to the rehearsal (and nothing real). */
  env: NodeJS.ProcessEnv;
  front: Front;
  quota: BandwidthQuota;
  bridge: InvokeBridge;
  instances: InstanceEmulator;
  lab: LocalPlatform;
  moto: {
    url: string;
    pid: number;
    ec2: EC2Client;
    lambda: LambdaClient;
    s3: S3Client;
    ssm: SSMClient;
    cloudFormation: CloudFormationClient;
    scheduler: SchedulerClient;
  };
  ticker: AccountTicker;
  accountSettings: AccountSettings;
  stop(): Promise<void>;
}

/**
 * The lab's shaping behind the emulated AWS: default-625 at 1/5 of its rates (a 560 Mbit/s burst
 * of 1 s over 125 Mbit/s sustained). At full rate (2,800 over 625) a loaded host's one stream
 * reached 954 Mbit/s, which empties the 272 MB bucket in 6.7 s: a 5 s upload never left its burst,
 * and its 954 was the cell's "sustained" (2026-12-06, beside a busy loop).
 */
export const REHEARSAL_PROFILE = scaledProfile("default-625", 5);

export async function startRehearsal(): Promise<Rehearsal> {
  const dir = await mkdtemp(join(tmpdir(), "lnb-rehearsal-"));
  // LNB_REHEARSAL_KEEP=1 keeps the directory (moto's log, the emulated server's files) to read after a failure
  const undo: (() => Promise<void>)[] = [
    async () => (process.env.LNB_REHEARSAL_KEEP ? undefined : rm(dir, { recursive: true, force: true })),
  ];
  const stop = async () => {
    for (const step of undo.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    const shaped = process.getuid?.() === 0;
    const lab = await LocalPlatform.open({
      profile: REHEARSAL_PROFILE.name,
      customProfiles: [REHEARSAL_PROFILE.profile],
      labName: privateLabName(),
      mode: shaped ? "shaped" : "unshaped",
      environments: 2,
      functionTimeoutSeconds: 900,
    });
    undo.push(() => lab.dispose());
    const namespace = lab.lab.cloudNamespace;
    let motoChild: ChildProcess;
    let motoUrl: string;
    let s3EndpointInLab: string;
    if (namespace) {
      await addAddress(namespace, "lo", `${INSTANCE_LAB_ADDRESS}/32`);
      const socketPath = join(dir, "moto.sock");
      const relay = await startNamespaceRelay(namespace, [
        { socketPath, host: MOTO_LAB_ADDRESS, port: MOTO_LAB_PORT },
      ]);
      undo.push(() => stopChild(relay));
      const listener: Server = await listenToSocket("127.0.0.1", 0, socketPath);
      undo.push(() => new Promise((resolve) => listener.close(() => resolve())));
      motoUrl = `http://127.0.0.1:${listeningPort(listener)}`;
      s3EndpointInLab = `http://${MOTO_LAB_ADDRESS}:${MOTO_LAB_PORT}`;
      motoChild = (
        await startMoto({
          namespace,
          host: MOTO_LAB_ADDRESS,
          port: MOTO_LAB_PORT,
          probeUrl: motoUrl,
          logFile: join(dir, "moto.log"),
        })
      ).child;
    } else {
      const port = await freeLoopbackPort();
      motoUrl = `http://127.0.0.1:${port}`;
      s3EndpointInLab = motoUrl;
      motoChild = (
        await startMoto({
          namespace: null,
          host: "127.0.0.1",
          port,
          probeUrl: motoUrl,
          logFile: join(dir, "moto.log"),
        })
      ).child;
    }
    undo.push(() => stopChild(motoChild));
    const common = { region: REHEARSAL_REGION, endpoint: motoUrl, credentials: REHEARSAL_CREDENTIALS };
    const moto = {
      url: motoUrl,
      pid: motoChild.pid as number,
      ec2: new EC2Client(common),
      lambda: new LambdaClient(common),
      s3: new S3Client({ ...common, forcePathStyle: true }),
      ssm: new SSMClient(common),
      cloudFormation: new CloudFormationClient(common),
      scheduler: new SchedulerClient(common),
    };
    await giveDefaultVpcAnInternetGateway(moto.ec2);
    const bridge = new InvokeBridge(
      lab,
      moto,
      {
        instancePublic: INSTANCE_PUBLIC_ADDRESS,
        instanceInLab: namespace ? INSTANCE_LAB_ADDRESS : INSTANCE_PUBLIC_ADDRESS,
        s3EndpointInLab,
      },
      join(dir, "code"),
      REHEARSAL_REGION,
    );
    const quota = new BandwidthQuota(MOTO_ACCOUNT_ID);
    const accountSettings: AccountSettings = {
      concurrentExecutions: 1000,
      unreservedConcurrentExecutions: 1000,
    };
    const front = await startFront({
      motoUrl,
      quota,
      bridge,
      accountSettings,
      publicAddress: INSTANCE_PUBLIC_ADDRESS,
      account: MOTO_ACCOUNT_ID,
      // the default server's price in the rehearsal's region: the rehearsal's own figure, not AWS's
      serverPrices: [
        { region: REHEARSAL_REGION, instanceType: "c8gn.large", usdPerHour: REHEARSAL_SERVER_USD_PER_HOUR },
      ],
    });
    undo.push(() => front.close());
    const instances = new InstanceEmulator(moto, {
      namespace,
      addressInLab: INSTANCE_LAB_ADDRESS,
      publicAddress: INSTANCE_PUBLIC_ADDRESS,
      dir: join(dir, "instances"),
    });
    undo.push(() => instances.stop());
    const ticker = new AccountTicker([
      { name: "server instance", run: () => instances.tick() },
      {
        name: "schedules",
        run: () => syncPlaceholderSchedules(moto, MOTO_ACCOUNT_ID),
      },
    ]);
    ticker.start();
    undo.push(() => ticker.stop());
    const env = rehearsalCliEnv(front.url, dir);
    return { env, front, quota, bridge, instances, ticker, lab, moto, accountSettings, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The environment of a CLI child that talks to `endpointUrl` (and nothing real): the rehearsal's
 * static credentials, `home` as its home, 100 columns.
 */
export function rehearsalCliEnv(endpointUrl: string, home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: "C.UTF-8",
    AWS_ENDPOINT_URL: endpointUrl,
    AWS_ACCESS_KEY_ID: REHEARSAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: REHEARSAL_CREDENTIALS.secretAccessKey,
    // no shared config or credentials files of this machine, no instance metadata
    AWS_CONFIG_FILE: join(home, "aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(home, "aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    COLUMNS: "100",
  };
}

/** The agent's published versions ($LATEST is not one), as moto holds them. */
export async function publishedVersions(rehearsal: Rehearsal): Promise<string[]> {
  const versions = await rehearsal.moto.lambda.send(
    new ListVersionsByFunctionCommand({ FunctionName: "lambda-netbench-agent" }),
  );
  return (versions.Versions ?? []).map((v) => v.Version as string).filter((v) => v !== "$LATEST");
}

/** moto's default VPC has no internet gateway; AWS's has one, routed from the main table. */
export async function giveDefaultVpcAnInternetGateway(ec2: EC2Client): Promise<void> {
  const vpcs = await ec2.send(
    new DescribeVpcsCommand({ Filters: [{ Name: "is-default", Values: ["true"] }] }),
  );
  const vpcId = vpcs.Vpcs?.[0]?.VpcId;
  if (!vpcId) throw new Error("moto has no default VPC");
  const gateway = await ec2.send(new CreateInternetGatewayCommand({}));
  const gatewayId = gateway.InternetGateway?.InternetGatewayId as string;
  await ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: gatewayId, VpcId: vpcId }));
  const tables = await ec2.send(
    new DescribeRouteTablesCommand({
      Filters: [
        { Name: "vpc-id", Values: [vpcId] },
        { Name: "association.main", Values: ["true"] },
      ],
    }),
  );
  const tableId = tables.RouteTables?.[0]?.RouteTableId as string;
  await ec2.send(
    new CreateRouteCommand({
      RouteTableId: tableId,
      DestinationCidrBlock: "0.0.0.0/0",
      GatewayId: gatewayId,
    }),
  );
}

/** Runs the real CLI (bin/lambda-netbench.js) against the rehearsal, as a user would type it. */
export function runCli(
  rehearsal: Rehearsal,
  args: string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<{
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  seconds: number;
}> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/lambda-netbench.js", ...args], {
      env: { ...rehearsal.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    options.onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout,
        stderr: withoutSdkNotice(stderr),
        seconds: (performance.now() - started) / 1000,
      });
    });
  });
}

/** The AWS SDK's notice about Node 20 support, printed by every command on Node 20 (not ours). */
export function withoutSdkNotice(stderr: string): string {
  return stderr.replace(
    /\(node:\d+\) Warning: NodeVersionSupportWarning[\s\S]*?--trace-warnings \.\.\.` to show where the warning was created\)\n/g,
    "",
  );
}

/**
 * The `skip` of a test file that needs moto's server mode: false where it is installed, else the
 * reason, also printed on stderr so a run without moto says so loudly instead of passing quietly.
 */
export function rehearsalSkip(what = "the AWS rehearsal"): string | false {
  const missing = motoMissing();
  if (!missing) return false;
  console.error(`\n*** SKIPPED: ${what} needs moto's server mode: ${missing} ***\n`);
  return `SKIPPED: ${missing}`;
}

/**
 * The plan a rehearsal file runs: one local target (default-625, replaced by `--regions`: the lab
 * behind the emulated AWS shapes with REHEARSAL_PROFILE), x86_64, one repetition.
 */
export interface RehearsalPlan {
  /** The plan's name; its file is `<name>-plan.yaml` in the file's work directory. */
  name: string;
  memoryMb: number[];
  /** false: no warm-up invocation before a cell's measured ones. */
  warmup?: false;
  /** One YAML flow mapping a probe, as a plan file writes it. */
  probes: string[];
}

export function rehearsalPlanYaml(plan: RehearsalPlan): string {
  return [
    `name: ${plan.name}`,
    "targets: [{ platform: local, profile: default-625 }]",
    `memoryMb: [${plan.memoryMb.join(", ")}]`,
    "architectures: [x86_64]",
    "repetitions: 1",
    ...(plan.warmup === false ? ["warmup: false"] : []),
    "probes:",
    ...plan.probes.map((probe) => `  - ${probe}`),
    "",
  ].join("\n");
}

/** What a rehearsal file's tests share: set in its `before`, in order on one account. */
export interface RehearsalFile {
  rehearsal: Rehearsal;
  /** The file's scratch directory (removed after its tests). */
  work: string;
  /** The plan, written in `work`. */
  planFile: string;
}

/**
 * A test file's rehearsal: its plan written and the rehearsal started before its tests, both
 * removed after them (nothing done when `skip` says why not). The fields are set by then.
 * `started` runs in the same hook, once the rehearsal answers: a second top-level `before` of
 * the file is not held back until this one's promise settles (Node 20 starts it at once, while
 * moto is still starting).
 */
export function useRehearsal(
  skip: string | false,
  plan: RehearsalPlan,
  started?: (rehearsal: Rehearsal) => Promise<void>,
): RehearsalFile {
  const file = {} as RehearsalFile;
  before(
    async () => {
      if (skip) return;
      file.work = await mkdtemp(join(tmpdir(), `lnb-${plan.name}-test-`));
      file.planFile = join(file.work, `${plan.name}-plan.yaml`);
      await writeFile(file.planFile, rehearsalPlanYaml(plan));
      file.rehearsal = await startRehearsal();
      await started?.(file.rehearsal);
    },
    { timeout: 180_000 },
  );
  after(
    async () => {
      if (skip) return;
      await file.rehearsal?.stop();
      if (file.work) await rm(file.work, { recursive: true, force: true });
    },
    { timeout: 120_000 },
  );
  return file;
}

/** A CLI command's exit code, with everything it printed when it is not the one expected. */
export function assertExit(result: { code: number | null; all: string }, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}, expected ${code}:\n${result.all}`);
}

/** The writing calls among those the fault layer saw, "service Operation". */
export const writes = (calls: SeenCall[]): string[] =>
  calls.filter((call) => call.write).map((call) => `${call.service} ${call.operation}`);
