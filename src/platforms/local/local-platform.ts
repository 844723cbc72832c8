import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import type { AgentEventInput } from "../../agent/event.js";
import { lambdaArchitectureName } from "../../probes/info.js";
import type {
  Architecture,
  EnvironmentVariant,
  InvocationOutcome,
  Platform,
  PlatformFacts,
  ProbeEndpoints,
} from "../platform.js";
import { type AgentExit, AgentProcess } from "./agent-process.js";
import { joinCgroupScript, oomKillCount } from "./cgroups.js";
import { checkBuilt } from "./dist-paths.js";
import {
  configureEnvironment,
  createEnvironment,
  type LabEnvironment,
  removeEnvironment,
} from "./environments.js";
import { labFleetProblem } from "./fleet-capacity.js";
import { type LabUpOptions, labDown, labUp, runningLab } from "./lab.js";
import { DEFAULT_LAB_NAME, environmentNamespace } from "./lab-names.js";
import { deleteNamespace, inNamespace } from "./namespaces.js";
import { LAB_S3_CREDENTIALS } from "./object-store.js";
import {
  checkMemoryMb,
  type EnvironmentShape,
  environmentShape,
  type LabProfile,
  resolveProfile,
} from "./profiles.js";
import { type CommandResult, runCommand } from "./run-command.js";
import { type LabState, processStartTicks, writeLabState } from "./state-file.js";
import { headObjectBytes, serveObjectFromFile, testObjectKey } from "./test-objects.js";

export interface LocalPlatformOptions {
  profile: string;
  /** Custom profiles from the config (validated here). */
  customProfiles?: unknown[];
  /** Which lab: `lnblab` (the one `lab up` starts; default) or a private `lnblabp<PID>`. */
  labName?: string;
  /** Used only when this platform has to bring the lab up itself. */
  environments?: number;
  mode?: LabUpOptions["mode"];
  /** Used only when this platform has to bring the lab up itself. */
  iperf3Server?: LabUpOptions["iperf3Server"];
  /** Lambda's function timeout (max 900 s): an invocation running longer is killed. */
  functionTimeoutSeconds?: number;
}

interface Slot {
  environment: LabEnvironment;
  agent: AgentProcess | null;
  busy: boolean;
}

/**
 * The local platform: execution environments of the lab. Attaches to a running lab (from
 * `lab up`) or brings one up for its own use, torn down again by dispose(). Each
 * environment runs one invocation at a time; an environment keeps its agent process
 * between invocations of the same memory size (warm) and is reshaped for another size
 * (the agent restarts: cold), like Lambda.
 */
export class LocalPlatform implements Platform {
  readonly name = "local" as const;
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  private readonly hostArch: Architecture;
  private disposed = false;

  private constructor(
    private readonly state: LabState,
    private readonly profile: LabProfile,
    private readonly ownsLab: boolean,
    private readonly functionTimeoutSeconds: number,
  ) {
    this.hostArch = lambdaArchitectureName(process.arch) as Architecture;
  }

  static async open(options: LocalPlatformOptions): Promise<LocalPlatform> {
    const profile = resolveProfile(options.profile, options.customProfiles);
    const timeout = options.functionTimeoutSeconds ?? 900;
    if (!(timeout >= 1 && timeout <= 900)) {
      throw new Error(`functionTimeoutSeconds: ${timeout} is not allowed (allowed: 1-900)`);
    }
    checkBuilt();
    const labName = options.labName ?? DEFAULT_LAB_NAME;
    let state = await runningLab(labName);
    let owns = false;
    if (state && options.mode === "unshaped" && state.mode !== "unshaped") state = null;
    if (!state) {
      state = await labUp({
        labName,
        profile: profile.name,
        customProfiles: options.customProfiles,
        environments: options.environments,
        mode: options.mode,
        iperf3Server: options.iperf3Server,
      });
      owns = true;
    } else if (
      state.user &&
      state.user.pid !== process.pid &&
      (await processStartTicks(state.user.pid)) === state.user.startTicks
    ) {
      throw new Error(
        `lab ${labName} is in use by process ${state.user.pid}; wait for it or use a private lab`,
      );
    }
    const startTicks = (await processStartTicks(process.pid)) ?? 0;
    state.user = { pid: process.pid, startTicks };
    if (state.s3.s3ConnectionBytesPerSecond !== profile.s3ConnectionBytesPerSecond) {
      await setS3ConnectionCap(state, profile.s3ConnectionBytesPerSecond);
    }
    state.profile = profile.name;
    await writeLabState(state);
    // environments of an earlier user that crashed: ours now, so remove them
    if (state.mode === "shaped") {
      for (let i = 0; i < state.environmentCount; i += 1)
        await deleteNamespace(environmentNamespace(labName, i));
    }
    return new LocalPlatform(state, profile, owns, timeout);
  }

  get target(): string {
    return this.profile.name;
  }

  /** The lab's state (servers, addresses, mode). */
  get lab(): LabState {
    return this.state;
  }

  maxConcurrency(): number {
    return this.state.environmentCount;
  }

  async facts(): Promise<PlatformFacts> {
    const unshaped = this.state.mode === "unshaped";
    const maxDownload = Math.max(...this.profile.download.map((point) => point.megabitsPerSecond));
    return {
      platform: "local",
      target: this.profile.name,
      emulated: true,
      unshaped,
      quotaBitsPerSecond: unshaped ? null : maxDownload * 1e6,
      details: {
        lab: this.state.labName,
        mode: this.state.mode,
        unshapedReason: this.state.unshapedReason,
        profile: this.profile,
        shaping: unshaped
          ? "none: loopback, no bandwidth, CPU or memory limits (results labelled unshaped)"
          : "tc tbf on the egress of each veth end (environment end = upload, cloud end = download); rates are on the wire (Ethernet frames), so TCP payload rates are about 4% lower",
        roundTrip:
          this.profile.roundTripMs > 0
            ? `${this.profile.roundTripMs} ms (netem)`
            : "not emulated: this kernel has no netem, so the lab's round trip is ~0.05 ms (S3 in-region is ~1 ms)",
        cpuShare: unshaped
          ? "none"
          : `memory / ${this.profile.mbPerVcpu} vCPU (cgroup v1 cfs quota), capped at ${this.state.hostCores} host cores`,
        memoryLimit: unshaped ? "none" : "memory size (cgroup v1 memory.limit_in_bytes)",
        iperf3Server: this.state.iperf3.server,
        s3Server: "nginx (TLS; GET/HEAD from s3rver's files) in front of s3rver 3.7.1",
        s3ConnectionBytesPerSecond: this.profile.s3ConnectionBytesPerSecond,
        hostCores: this.state.hostCores,
        hostArch: this.hostArch,
        cpuModel: os.cpus()[0]?.model ?? "unknown",
        kernel: os.release(),
      },
    };
  }

  endpoints(): ProbeEndpoints {
    return {
      iperf3: { host: this.state.iperf3.host, ports: [...this.state.iperf3.ports] },
      s3: {
        endpoint: this.state.s3.endpoint,
        region: this.state.s3.region,
        bucket: this.state.s3.bucket,
        pathStyle: true,
        caPem: this.caPem,
      },
    };
  }

  private caPem = "";

  async prepare(variants: EnvironmentVariant[]): Promise<void> {
    for (const variant of variants) this.checkVariant(variant);
    this.caPem = await readFile(this.state.s3.caFile, "utf8");
    while (this.slots.length < this.state.environmentCount) {
      const environment = await createEnvironment(this.state, this.slots.length);
      this.slots.push({ environment, agent: null, busy: false });
    }
  }

  private checkVariant(variant: EnvironmentVariant): void {
    checkMemoryMb(variant.memoryMb);
    if (variant.arch !== this.hostArch) {
      throw new Error(
        `arch: the local lab runs only this machine's architecture (${this.hostArch}); ${variant.arch} needs AWS`,
      );
    }
  }

  fleetCapacityProblem(variant: EnvironmentVariant, environments: number): string | null {
    return labFleetProblem(this.shapeFor(variant.memoryMb), environments, {
      cores: this.state.hostCores,
      memoryBytes: os.totalmem(),
      environmentSlots: this.state.environmentCount,
    });
  }

  shapeFor(memoryMb: number): EnvironmentShape {
    return environmentShape(this.profile, memoryMb, this.state.hostCores);
  }

  async invoke(
    variant: EnvironmentVariant,
    event: AgentEventInput,
    options: { signal?: AbortSignal; timeoutSeconds?: number } = {},
  ): Promise<InvocationOutcome> {
    const startedAt = new Date().toISOString();
    const startMs = performance.now();
    const finish = (partial: Pick<InvocationOutcome, "response" | "failure">): InvocationOutcome => ({
      ...partial,
      startedAt,
      durationSeconds: (performance.now() - startMs) / 1000,
    });
    try {
      this.checkVariant(variant);
    } catch (error) {
      return finish({ response: null, failure: { kind: "platform", message: (error as Error).message } });
    }
    const slot = await this.acquire(variant.memoryMb);
    try {
      const agent = await this.warmAgent(slot, variant.memoryMb);
      const before = slot.environment.cgroup ? await oomKillCount(slot.environment.cgroup) : 0;
      const result = await agent.invoke(
        event,
        options.timeoutSeconds ?? this.functionTimeoutSeconds,
        options.signal,
        (exit) => this.classifyExit(slot, exit, before),
      );
      if (!agent.alive) slot.agent = null;
      return finish({ response: result.response, failure: result.failure });
    } catch (error) {
      return finish({ response: null, failure: { kind: "platform", message: (error as Error).message } });
    } finally {
      this.release(slot);
    }
  }

  /**
   * Runs a command (e.g. the stock iperf3 client) inside an environment configured for a
   * memory size, in its namespace and cgroups: the reference the probes are checked against.
   */
  async execInEnvironment(
    memoryMb: number,
    file: string,
    args: string[],
    timeoutSeconds = 120,
  ): Promise<CommandResult> {
    const slot = await this.acquire(memoryMb);
    try {
      await this.warmAgent(slot, memoryMb, false);
      const [command, commandArgs] = inNamespace(slot.environment.namespace, file, args);
      if (!slot.environment.cgroup)
        return await runCommand(command, commandArgs, { allowFailure: true, timeoutSeconds });
      return await runCommand(
        "sh",
        ["-c", `${joinCgroupScript(slot.environment.cgroup)} && exec "$0" "$@"`, command, ...commandArgs],
        { allowFailure: true, timeoutSeconds },
      );
    } finally {
      this.release(slot);
    }
  }

  async ensureTestObject(bytes: number): Promise<string> {
    if (!Number.isInteger(bytes) || bytes < 1_048_576) {
      throw new Error(
        `bytes: ${bytes} is not allowed (allowed: integers >= 1048576, the s3-put probe's minimum of 1 MiB)`,
      );
    }
    if (!this.caPem) this.caPem = await readFile(this.state.s3.caFile, "utf8");
    const key = testObjectKey(bytes);
    // one seeding at a time: the direct-objects map is appended to and nginx reloaded
    const previous = this.seeding;
    let done = () => {};
    this.seeding = new Promise<void>((resolve) => {
      done = resolve;
    });
    await previous;
    try {
      if ((await headObjectBytes(this.state, key)) !== bytes) await this.uploadTestObject(key, bytes);
      await serveObjectFromFile(this.state, key);
      return key;
    } finally {
      done();
    }
  }

  private seeding: Promise<void> = Promise.resolve();

  private async uploadTestObject(key: string, bytes: number): Promise<void> {
    // uploaded by the agent's s3-put probe from the cloud side (unshaped, no cgroup): fast, and
    // through the same S3 API a real bucket is filled with
    const uploader = new AgentProcess(
      {
        namespace: this.state.cloudNamespace,
        cgroup: null,
        memoryMb: 10_240,
        functionName: `${this.state.labName}-uploader`,
      },
      {
        AWS_ACCESS_KEY_ID: LAB_S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LAB_S3_CREDENTIALS.secretAccessKey,
      },
    );
    try {
      const s3 = this.endpoints().s3;
      const result = await uploader.invoke(
        {
          probe: "s3-put",
          endpoint: s3?.endpoint,
          region: this.state.s3.region,
          bucket: this.state.s3.bucket,
          key,
          pathStyle: true,
          caPem: this.caPem,
          sizeMib: bytes / 1_048_576,
        },
        900,
        undefined,
        async (exit) => ({ kind: "function-error", message: describeExit(exit) }),
      );
      if (!result.response?.ok) {
        const why = result.response
          ? `${result.response.error.kind}: ${result.response.error.message}`
          : result.failure?.message;
        throw new Error(`lab: could not create test object ${key} with the s3-put probe (${why})`);
      }
    } finally {
      await uploader.kill();
    }
    const size = await headObjectBytes(this.state, key);
    if (size !== bytes)
      throw new Error(`lab: test object ${key} has ${size ?? "no"} bytes after s3-put, expected ${bytes}`);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const slot of this.slots) {
      await slot.agent?.kill();
      await removeEnvironment(slot.environment);
    }
    this.slots.length = 0;
    if (this.ownsLab) {
      await labDown(this.state.labName);
      return;
    }
    this.state.user = null;
    await writeLabState(this.state);
  }

  private async acquire(memoryMb: number): Promise<Slot> {
    if (this.disposed) throw new Error("lab platform is disposed");
    if (this.slots.length === 0) await this.prepare([{ memoryMb, arch: this.hostArch }]);
    for (;;) {
      const free = this.slots.filter((slot) => !slot.busy);
      const chosen =
        free.find((slot) => slot.agent && slot.environment.shape?.memoryMb === memoryMb) ??
        free.find((slot) => slot.environment.shape?.memoryMb === memoryMb) ??
        free.find((slot) => !slot.agent) ??
        free[0];
      if (chosen) {
        chosen.busy = true;
        return chosen;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private release(slot: Slot): void {
    slot.busy = false;
    this.waiting.shift()?.();
  }

  /** The slot's agent for this memory size: reshapes the environment (cold start) when the size changes. */
  private async warmAgent(slot: Slot, memoryMb: number): Promise<AgentProcess>;
  private async warmAgent(slot: Slot, memoryMb: number, startAgent: false): Promise<null>;
  private async warmAgent(slot: Slot, memoryMb: number, startAgent = true): Promise<AgentProcess | null> {
    if (slot.environment.shape?.memoryMb !== memoryMb) {
      await slot.agent?.kill();
      slot.agent = null;
      await configureEnvironment(
        this.state,
        slot.environment,
        this.shapeFor(memoryMb),
        this.profile.roundTripMs,
      );
    }
    if (!startAgent) return null;
    if (!slot.agent?.alive) {
      slot.agent = new AgentProcess(
        {
          namespace: slot.environment.namespace,
          cgroup: slot.environment.cgroup,
          memoryMb,
          functionName: `${this.state.labName}-e${slot.environment.index}`,
        },
        {
          AWS_ACCESS_KEY_ID: LAB_S3_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: LAB_S3_CREDENTIALS.secretAccessKey,
        },
      );
    }
    return slot.agent;
  }

  private async classifyExit(slot: Slot, exit: AgentExit, oomKillsBefore: number) {
    const oomKilled = slot.environment.cgroup
      ? (await oomKillCount(slot.environment.cgroup)) > oomKillsBefore
      : false;
    if ((exit.signal === "SIGKILL" && oomKilled) || /heap out of memory/i.test(exit.stderrTail)) {
      return {
        kind: "out-of-memory" as const,
        message: `Runtime exited: out of memory (limit ${slot.environment.shape?.memoryMb ?? "?"} MB)`,
      };
    }
    return { kind: "function-error" as const, message: describeExit(exit) };
  }
}

function describeExit(exit: AgentExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
  const tail = exit.stderrTail.trim().split("\n").slice(-5).join(" | ");
  return `Runtime exited with ${how}${tail ? `: ${tail}` : ""}`;
}

/** Changes nginx's per-request rate cap (the profile's S3 per-connection cap) and reloads it. */
async function setS3ConnectionCap(state: LabState, bytesPerSecond: number | null): Promise<void> {
  const config = await readFile(state.s3.nginxConfigFile, "utf8");
  await writeFile(
    state.s3.nginxConfigFile,
    config.replace(/limit_rate \d+;/, `limit_rate ${bytesPerSecond ?? 0};`),
  );
  const nginx = state.processes.find((p) => p.role === "nginx");
  if (nginx && (await processStartTicks(nginx.pid)) === nginx.startTicks) process.kill(nginx.pid, "SIGHUP");
  state.s3.s3ConnectionBytesPerSecond = bytesPerSecond;
}
