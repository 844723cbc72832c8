import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import type { LabProfile } from "../../plan/lab-profile.js";
import { checkShapedLab } from "./capabilities.js";
import { createCertificates } from "./certificates.js";
import { removeLab, removeOrphanedLabs } from "./cleanup.js";
import { checkBuilt } from "./dist-paths.js";
import { createHostLink } from "./host-link.js";
import {
  checkIperf3FlowCap,
  DEFAULT_IPERF3_SERVER,
  type Iperf3ServerKind,
  iperf3ServerDescription,
  setIperf3FlowCap,
  startIperf3Servers,
} from "./iperf3-servers.js";
import { type LabHolder, refuseIfHeld } from "./lab-holder.js";
import {
  CLOUD_SERVICE_ADDRESS,
  checkLabName,
  cloudNamespace,
  DEFAULT_LAB_NAME,
  hostNamespace,
} from "./lab-names.js";
import { LabRefusal } from "./lab-refusal.js";
import { addAddress, createNamespace, listNamespaces } from "./namespaces.js";
import { LAB_BUCKET, LAB_REGION, startObjectStore } from "./object-store.js";
import { type ChosenProfile, chooseProfile } from "./profiles.js";
import { applyCloudReceiveBuffers } from "./receive-buffers.js";
import { isSameProcess, type LabState, labDirectory, readLabState, writeLabState } from "./state-file.js";

/**
 * `lab up|down|status`: the cloud side of the lab (a namespace with the iperf3 servers and
 * the S3 server), started detached so it outlives the command, recorded in the state file.
 * Environments are created by the platform that uses the lab (LocalPlatform).
 */

export interface LabUpOptions {
  labName?: string;
  profile: string;
  /** The plan's custom profiles (validated with it), which `profile` may name. */
  customProfiles?: readonly LabProfile[];
  /** Environments that may run at once (one iperf3 server port each). */
  environments?: number;
  /**
   * "shaped" (default): namespaces, tc and cgroups; refused (LabRefusal) where the host cannot
   * (not root, a missing kernel piece), never a silent fallback. "unshaped": loopback, no limits.
   */
  mode?: "shaped" | "unshaped";
  /** Which iperf3 server the cloud side runs (default: ours). */
  iperf3Server?: Iperf3ServerKind;
  /**
   * The process that will use the lab, recorded from the first write of the state file (a
   * platform bringing the lab up for itself), so no second process sees it free meanwhile.
   */
  holder?: LabHolder;
}

export const DEFAULT_ENVIRONMENTS = 4;
const FIRST_IPERF3_PORT = 5201;
const S3RVER_PORT = 4568;

/** Brings a lab up; `chosen` is the profile the caller already chose by `options.profile`. */
export async function labUp(
  options: LabUpOptions,
  chosen: ChosenProfile = chooseProfile(options.profile, options.customProfiles),
): Promise<LabState> {
  const labName = options.labName ?? DEFAULT_LAB_NAME;
  checkLabName(labName);
  const { profile } = chosen;
  const environmentCount = options.environments ?? DEFAULT_ENVIRONMENTS;
  if (!Number.isInteger(environmentCount) || environmentCount < 1 || environmentCount > 64) {
    throw new LabRefusal(`environments: ${environmentCount} is not allowed (allowed: integers 1-64)`);
  }
  const iperf3Server = options.iperf3Server ?? DEFAULT_IPERF3_SERVER;
  if (iperf3Server !== "ours" && iperf3Server !== "stock") {
    throw new LabRefusal(`iperf3Server: "${iperf3Server}" is not allowed (allowed: ours, stock)`);
  }
  const mode = options.mode ?? "shaped";
  if (mode !== "shaped" && mode !== "unshaped") {
    throw new LabRefusal(`mode: "${mode}" is not allowed (allowed: shaped, unshaped)`);
  }
  checkIperf3FlowCap(iperf3Server, chosen.flowCapBitsPerSecond);
  const shaped = mode === "shaped";
  if (shaped) await checkShapedLab([chosen]);
  checkBuilt();
  const reason = shaped ? null : "unshaped mode requested";

  // a lab someone is measuring on is never replaced behind their back
  await refuseIfHeld(labName, "wait for it to finish, or use another lab");
  // a crashed run's leftovers: this lab's own, and private labs whose owner is gone
  await removeLab(labName);
  await removeOrphanedLabs();

  const dir = labDirectory(labName);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const namespace = shaped ? cloudNamespace(labName) : null;
  const host = shaped ? CLOUD_SERVICE_ADDRESS : "127.0.0.1";
  const state: LabState = {
    labName,
    profile: profile.name,
    mode: shaped ? "shaped" : "unshaped",
    unshapedReason: reason,
    createdAt: new Date().toISOString(),
    dir,
    cloudNamespace: namespace,
    hostLink: null,
    environmentCount,
    iperf3: { host, ports: [], server: iperf3ServerDescription(iperf3Server) },
    s3: {
      endpoint: "",
      region: LAB_REGION,
      bucket: LAB_BUCKET,
      caFile: "",
      storeDir: join(dir, "store"),
      nginxConfigFile: "",
      s3ConnectionBytesPerSecond: chosen.s3RequestBytesPerSecond,
    },
    processes: [],
    user: options.holder ?? null,
    hostCores: os.availableParallelism(),
  };
  try {
    if (namespace) {
      await createNamespace(namespace);
      await addAddress(namespace, "lo", `${CLOUD_SERVICE_ADDRESS}/32`);
      if (profile.hostMegabitsPerSecond !== null) {
        // recorded before it exists, so a failure half-way is still cleaned up
        state.hostLink = {
          namespace: hostNamespace(labName),
          megabitsPerSecond: profile.hostMegabitsPerSecond,
        };
        await writeLabState(state);
        state.hostLink = await createHostLink(labName, namespace, profile.hostMegabitsPerSecond);
      }
    }
    // write early so a failure half-way is still cleaned up by `down` or the next `up`
    await writeLabState(state);
    const ports = shaped
      ? Array.from({ length: environmentCount }, (_, i) => FIRST_IPERF3_PORT + i)
      : await freePorts(environmentCount + 2);
    const iperf3Ports = ports.slice(0, environmentCount);
    const httpsPort = shaped ? 443 : (ports[environmentCount] ?? 0);
    const s3rverPort = shaped ? S3RVER_PORT : (ports[environmentCount + 1] ?? 0);
    const certificates = await createCertificates(dir, [host, "localhost"]);
    state.s3.caFile = certificates.caFile;
    state.s3.endpoint = httpsPort === 443 ? `https://${host}` : `https://${host}:${httpsPort}`;
    // our iperf3 servers read the profile's per-flow cap from this file at each test start
    setIperf3FlowCap(iperf3Server, dir, chosen.flowCapBitsPerSecond);
    await applyCloudReceiveBuffers(namespace, chosen.flowCapBitsPerSecond, profile.roundTripMs);
    // the S3 and iperf3 servers start side by side: each is ready when it listens, and on a
    // slow host (Node starting in an emulated guest) waiting for one after the other adds up
    const [store, iperf3] = await Promise.allSettled([
      startObjectStore(namespace, {
        dir,
        storeDir: state.s3.storeDir,
        listenAddress: host,
        httpsPort,
        controlPort: s3rverPort,
        certificates,
        connectionBytesPerSecond: chosen.s3RequestBytesPerSecond,
        runAsRoot: process.getuid?.() === 0,
      }),
      startIperf3Servers(iperf3Server, namespace, host, iperf3Ports, dir, (server) =>
        state.processes.push(server),
      ),
    ]);
    if (store.status === "fulfilled") {
      state.processes.unshift(...store.value.processes);
      state.s3.nginxConfigFile = store.value.nginxConfigFile;
    }
    await writeLabState(state);
    if (store.status === "rejected") throw store.reason;
    if (iperf3.status === "rejected") throw iperf3.reason;
    state.iperf3.ports = iperf3Ports;
    await writeLabState(state);
    return state;
  } catch (error) {
    await writeLabState(state).catch(() => undefined);
    await removeLab(labName).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes the lab. Refused (LabBusy) while another process holds it, unless `force`: a run
 * whose lab is taken away pauses (the local platform notices), and `run --resume` redoes what
 * it could not record.
 */
export async function labDown(
  labName: string = DEFAULT_LAB_NAME,
  options: { force?: boolean } = {},
): Promise<string[]> {
  checkLabName(labName);
  if (!options.force)
    await refuseIfHeld(
      labName,
      "lab down --force takes it away anyway (that run then pauses, and run --resume redoes what it could not record)",
    );
  return removeLab(labName);
}

export interface LabStatus {
  labName: string;
  up: boolean;
  state: LabState | null;
  processes: { role: string; pid: number; running: boolean }[];
  namespaces: string[];
  problems: string[];
}

export async function labStatus(labName: string = DEFAULT_LAB_NAME): Promise<LabStatus> {
  checkLabName(labName);
  const state = await readLabState(labName);
  const processes = await Promise.all(
    (state?.processes ?? []).map(async (p) => ({
      role: p.role,
      pid: p.pid,
      running: await isSameProcess(p),
    })),
  );
  const namespaces =
    process.getuid?.() === 0
      ? (await listNamespaces().catch(() => [])).filter((ns) => ns.startsWith(`${labName}-`))
      : [];
  const problems = processes.filter((p) => !p.running).map((p) => `${p.role} (pid ${p.pid}) is not running`);
  if (state?.cloudNamespace && !namespaces.includes(state.cloudNamespace)) {
    problems.push(`namespace ${state.cloudNamespace} is missing`);
  }
  if (state?.hostLink && !namespaces.includes(state.hostLink.namespace)) {
    problems.push(`namespace ${state.hostLink.namespace} (the shared host link) is missing`);
  }
  const up = state !== null && state.iperf3.ports.length > 0 && problems.length === 0;
  return { labName, up, state, processes, namespaces, problems };
}

/** The lab's servers are running (so a platform can attach to it). */
export async function runningLab(labName: string): Promise<LabState | null> {
  const status = await labStatus(labName);
  return status.up ? status.state : null;
}

/** Free loopback ports for the unshaped lab (the OS picks them). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === "object" && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
