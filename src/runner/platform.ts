import type { AgentEventInput } from "../agent/event.js";
import type { Architecture } from "../plan/architecture.js";
import type { PlatformName } from "../plan/platforms.js";
import type { ProbePeers } from "../probes/event-peers.js";
import type { InvocationOutcome } from "../results/invocation-outcome.js";
import type { PlatformFacts } from "../results/platform-facts.js";

/**
 * Where execution environments come from: the local lab or AWS. The runner owns this
 * interface and only talks to it; it never knows which platform it drives (the platforms
 * import it from here, so the runner never imports a platform).
 */

/** One kind of execution environment a cell runs in. */
export interface EnvironmentVariant {
  memoryMb: number;
  arch: Architecture;
  /** The function attached to the VPC given at deploy (AWS only); absent: outside a VPC. */
  vpc?: boolean;
}

/** Peers the probes talk to, as the platform provides them. */
/** The peers the platform offers the probes (defined beside the probes, which read them). */
export type ProbeEndpoints = ProbePeers;

/**
 * Implementations: `LocalPlatform` (src/platforms/local/local-platform.ts, the lab) and
 * `AwsPlatform` (src/platforms/aws/aws-platform.ts), each opened with an async static `open(...)`.
 */
export interface Platform {
  readonly name: PlatformName;
  readonly target: string;
  facts(): Promise<PlatformFacts>;
  /** How many invocations may run at once on this target. */
  maxConcurrency(): number;
  /**
   * Why `environments` of this variant cannot run at once here (memory, cores, concurrency),
   * or null when they can. Checked before anything is prepared or invoked.
   */
  fleetCapacityProblem?(variant: EnvironmentVariant, environments: number): string | null;
  /** Creates or checks what the variants need (environments, function versions). */
  prepare(variants: EnvironmentVariant[]): Promise<void>;
  endpoints(): ProbeEndpoints;
  /**
   * Makes sure an object of exactly `bytes` bytes exists for s3-get, created inside the target
   * by the agent's s3-put probe (never by copying files in), and returns its key.
   */
  ensureTestObject(bytes: number): Promise<string>;
  invoke(
    variant: EnvironmentVariant,
    event: AgentEventInput,
    options?: { signal?: AbortSignal },
  ): Promise<InvocationOutcome>;
  /** Releases what prepare() created for this run (not the lab or the stack themselves). */
  dispose(): Promise<void>;
}

/**
 * Thrown by a platform when the run cannot go on until the user acts (expired login, the iperf3
 * server's time-to-live reached): the invocation is not recorded, the runner stops taking work,
 * and `run --resume` redoes what was not recorded once the user has acted.
 */
export class RunPausedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunPausedError";
  }
}
