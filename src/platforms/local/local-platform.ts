import { readFile } from "node:fs/promises";
import os from "node:os";
import type { AgentEventInput } from "../../agent/event.js";
import type { Architecture } from "../../plan/architecture.js";
import type { LabProfile } from "../../plan/lab-profile.js";
import { lambdaArchitectureName } from "../../probes/info.js";
import type { InvocationOutcome } from "../../results/invocation-outcome.js";
import type { PlatformFacts } from "../../results/platform-facts.js";
import {
  type EnvironmentVariant,
  type Platform,
  type ProbeEndpoints,
  RunPausedError,
} from "../../runner/platform.js";
import { agentNode } from "./agent-node.js";
import type { FunctionCode } from "./agent-process.js";
import { hostCgroups } from "./cgroup-choice.js";
import { joinCgroupScript } from "./cgroups.js";
import { checkBuilt } from "./dist-paths.js";
import { shapeSlot, slotAgent } from "./environment-agents.js";
import { EnvironmentPool, type Slot } from "./environment-pool.js";
import { labFleetProblem } from "./fleet-capacity.js";
import { iperf3ServerKindOf, setIperf3FlowCap } from "./iperf3-servers.js";
import type { LabUpOptions } from "./lab.js";
import {
  attachLab,
  detachLab,
  type LabAttachment,
  lostLabReason,
  removeEarlierEnvironments,
} from "./lab-attachment.js";
import { DEFAULT_LAB_NAME } from "./lab-names.js";
import { LabRefusal } from "./lab-refusal.js";
import { inNamespace } from "./namespaces.js";
import { LAB_S3_SERVER_DESCRIPTION } from "./object-store.js";
import { classifyAgentExit, oomKillsBefore } from "./oom-classification.js";
import { checkMemoryMb, chooseProfile, type EnvironmentShape, environmentShape } from "./profiles.js";
import { applyCloudReceiveBuffers } from "./receive-buffers.js";
import { type CommandResult, runCommand } from "./run-command.js";
import { applyS3ConnectionCap } from "./s3-connection-cap.js";
import { serverProcessesFor, startServerCpu } from "./server-cpu.js";
import { fqFlowCapAvailable } from "./shaping.js";
import { type LabState, writeLabState } from "./state-file.js";
import { TestObjectSeeder } from "./test-object-seeding.js";

export interface LocalPlatformOptions {
  profile: string;
  /** The plan's custom profiles (validated with the plan), which `profile` may name. */
  customProfiles?: readonly LabProfile[];
  /** Which lab: `lnblab` (the one `lab up` starts; default) or a private `lnblabp<PID>`. */
  labName?: string;
  /** Used only when this platform has to bring the lab up itself. */
  environments?: number;
  /** "shaped" (default; refused where the host cannot shape) or "unshaped" (loopback). */
  mode?: LabUpOptions["mode"];
  /** Used only when this platform has to bring the lab up itself. */
  iperf3Server?: LabUpOptions["iperf3Server"];
  /** Lambda's function timeout (max 900 s): an invocation running longer is killed. */
  functionTimeoutSeconds?: number;
}

/**
 * The local platform: execution environments of the lab. The work is handed out along its
 * seams: lab ownership (lab-attachment.ts), the environments and their waiting line
 * (environment-pool.ts), agents warm and cold (environment-agents.ts, agent-process.ts), and
 * why an agent died (oom-classification.ts). Each environment runs one invocation at a time;
 * it keeps its agent between invocations of the same memory size (warm) and is reshaped for
 * another size (the agent restarts: cold), like Lambda.
 */
export class LocalPlatform implements Platform {
  readonly name = "local" as const;
  private readonly pool: EnvironmentPool;
  private readonly hostArch: Architecture;
  private disposed = false;
  private readonly state: LabState;

  private constructor(
    private readonly attachment: LabAttachment,
    private readonly profile: LabProfile,
    private readonly functionTimeoutSeconds: number,
  ) {
    this.state = attachment.state;
    this.pool = new EnvironmentPool(attachment.state);
    this.hostArch = lambdaArchitectureName(process.arch) as Architecture;
  }

  static async open(options: LocalPlatformOptions): Promise<LocalPlatform> {
    const chosen = chooseProfile(options.profile, options.customProfiles);
    const { profile } = chosen;
    const timeout = options.functionTimeoutSeconds ?? 900;
    if (!(timeout >= 1 && timeout <= 900)) {
      throw new LabRefusal(`functionTimeoutSeconds: ${timeout} is not allowed (allowed: 1-900)`);
    }
    checkBuilt();
    const attachment = await attachLab(options.labName ?? DEFAULT_LAB_NAME, chosen, {
      customProfiles: options.customProfiles,
      environments: options.environments,
      mode: options.mode,
      iperf3Server: options.iperf3Server,
    });
    const state = attachment.state;
    await applyS3ConnectionCap(state, chosen.s3RequestBytesPerSecond);
    setIperf3FlowCap(iperf3ServerKindOf(state.iperf3.server), state.dir, chosen.flowCapBitsPerSecond);
    await applyCloudReceiveBuffers(state.cloudNamespace, chosen.flowCapBitsPerSecond, profile.roundTripMs);
    state.profile = profile.name;
    await writeLabState(state);
    await removeEarlierEnvironments(state);
    return new LocalPlatform(attachment, profile, timeout);
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
    const cgroups = hostCgroups().driver;
    const netem = this.profile.roundTripMs > 0 || this.profile.lossPercent > 0;
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
          : `tc tbf on the egress of each veth end (environment end = upload, cloud end = download)${netem ? ", under a netem qdisc (half the round trip each way)" : ""}; ${
              this.profile.payload
                ? "the profile's rates are TCP payload, so the shaper (which counts Ethernet frames) is set 4.6% above them (1,514/1,448)"
                : "rates are on the wire (Ethernet frames), so TCP payload rates are about 4% lower"
            }`,
        flowCap: this.flowCapFact(),
        roundTrip: unshaped
          ? "not emulated: unshaped loopback"
          : this.profile.roundTripMs > 0
            ? `${this.profile.roundTripMs} ms (netem, half on each veth end)`
            : "not emulated (profile roundTripMs 0): the lab's round trip is ~0.05 ms (S3 in-region is ~1 ms)",
        lossPercent: unshaped ? 0 : this.profile.lossPercent,
        cpuShare: unshaped
          ? "none"
          : `memory / ${this.profile.mbPerVcpu} vCPU per ${this.profile.cpuPeriodMs} ms period (${cgroups?.cpuMechanism ?? "cgroup"}), capped at ${this.state.hostCores} host cores`,
        memoryLimit: unshaped ? "none" : `memory size (${cgroups?.memoryMechanism ?? "cgroup"})`,
        cgroupVersion: unshaped ? null : (cgroups?.version ?? null),
        iperf3Server: this.state.iperf3.server,
        s3Server: LAB_S3_SERVER_DESCRIPTION,
        s3ConnectionBytesPerSecond: this.profile.s3ConnectionBytesPerSecond,
        hostCores: this.state.hostCores,
        hostArch: this.hostArch,
        cpuModel: os.cpus()[0]?.model ?? "unknown",
        kernel: os.release(),
        // Lambda runs the agent on nodejs22.x: which Node ran it here
        agentRuntime: { node: agentNode().version, source: agentNode().source },
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
    await this.pool.fill();
  }

  private checkVariant(variant: EnvironmentVariant): void {
    checkMemoryMb(variant.memoryMb);
    if (variant.arch !== this.hostArch) {
      throw new Error(
        `arch: the local lab runs only this machine's architecture (${this.hostArch}); ${variant.arch} needs AWS`,
      );
    }
    if (variant.vpc)
      throw new Error("vpc: the local lab emulates functions outside a VPC; VPC variants need AWS");
  }

  fleetCapacityProblem(variant: EnvironmentVariant, environments: number): string | null {
    return labFleetProblem(this.shapeFor(variant.memoryMb), environments, {
      cores: this.state.hostCores,
      memoryBytes: os.totalmem(),
      environmentSlots: this.state.environmentCount,
    });
  }

  /** How the profile's per-flow cap is enforced here (run facts). */
  private flowCapFact(): string {
    const flowMbps = this.profile.flowMegabitsPerSecond;
    if (flowMbps === null) return "none";
    const servers = `${flowMbps} Mbit/s per TCP connection: the lab's iperf3 server paces each stream, nginx limit_rate each S3 request`;
    if (this.state.mode === "unshaped") return `${servers} (unshaped: no sch_fq)`;
    const fq = fqFlowCapAvailable();
    if (fq === true) return `${servers}, sch_fq maxrate under each veth end's tbf`;
    if (fq === false) return `${servers} (no sch_fq maxrate: this kernel has no fq)`;
    return `${servers}, plus sch_fq maxrate where the kernel has fq`;
  }

  shapeFor(memoryMb: number): EnvironmentShape {
    return environmentShape(this.profile, memoryMb, this.state.hostCores);
  }

  /**
   * One invocation in an environment. A failed one is checked against the lab: when the lab
   * was taken away from this run (`lab down --force`, a new `lab up`, its servers killed), the
   * failure is the lab's, not the function's, so the run pauses (RunPausedError: nothing is
   * recorded) and `run --resume` redoes the invocation once the lab is back.
   */
  async invoke(
    variant: EnvironmentVariant,
    event: AgentEventInput,
    options: { signal?: AbortSignal; timeoutSeconds?: number; code?: FunctionCode } = {},
  ): Promise<InvocationOutcome> {
    const outcome = await this.invokeInEnvironment(variant, event, options);
    if (outcome.failure || !outcome.response?.ok) {
      const lost = await lostLabReason(this.attachment);
      if (lost) throw new RunPausedError(`${lost}; this invocation was not recorded`);
    }
    return outcome;
  }

  private async invokeInEnvironment(
    variant: EnvironmentVariant,
    event: AgentEventInput,
    options: { signal?: AbortSignal; timeoutSeconds?: number; code?: FunctionCode },
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
      await shapeSlot(this.state, this.profile, slot, this.shapeFor(variant.memoryMb));
      const agent = await slotAgent(this.state, slot, variant.memoryMb, options.code);
      const cgroup = slot.environment.cgroup;
      const before = await oomKillsBefore(cgroup);
      const serverCpu = await startServerCpu(serverProcessesFor(this.state, event));
      const result = await agent.invoke(
        event,
        options.timeoutSeconds ?? this.functionTimeoutSeconds,
        options.signal,
        (exit) => classifyAgentExit(cgroup, slot.environment.shape?.memoryMb, exit, before),
      );
      if (!agent.alive) slot.agent = null;
      return {
        ...finish({ response: result.response, failure: result.failure }),
        serverCpu: await serverCpu(),
      };
    } catch (error) {
      return finish({ response: null, failure: { kind: "platform", message: (error as Error).message } });
    } finally {
      this.pool.release(slot);
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
      await shapeSlot(this.state, this.profile, slot, this.shapeFor(memoryMb));
      const [command, commandArgs] = inNamespace(slot.environment.namespace, file, args);
      if (!slot.environment.cgroup)
        return await runCommand(command, commandArgs, { allowFailure: true, timeoutSeconds });
      return await runCommand(
        "sh",
        ["-c", `${joinCgroupScript(slot.environment.cgroup)} && exec "$0" "$@"`, command, ...commandArgs],
        { allowFailure: true, timeoutSeconds },
      );
    } finally {
      this.pool.release(slot);
    }
  }

  async ensureTestObject(bytes: number): Promise<string> {
    this.seeder ??= new TestObjectSeeder(this.state, async () => {
      if (!this.caPem) this.caPem = await readFile(this.state.s3.caFile, "utf8");
      return this.caPem;
    });
    return this.seeder.ensure(bytes);
  }

  private seeder: TestObjectSeeder | null = null;

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.pool.dispose();
    await detachLab(this.attachment);
  }

  private async acquire(memoryMb: number): Promise<Slot> {
    if (this.disposed) throw new Error("lab platform is disposed");
    if (this.pool.size === 0) await this.prepare([{ memoryMb, arch: this.hostArch }]);
    return this.pool.acquire(memoryMb);
  }
}
