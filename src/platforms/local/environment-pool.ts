import type { AgentProcess } from "./agent-process.js";
import { createEnvironment, type LabEnvironment, removeEnvironment } from "./environments.js";
import type { LabState } from "./state-file.js";

/** One environment of the pool, with its agent while warm. */
export interface Slot {
  environment: LabEnvironment;
  agent: AgentProcess | null;
  busy: boolean;
}

/**
 * The lab's environments (as many as the lab has iperf3 ports) and the queue of invocations
 * waiting for one: each runs one invocation at a time; a free environment already warm for
 * the memory size is preferred, then one shaped for it, then one without an agent.
 */
export class EnvironmentPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly state: LabState) {}

  get size(): number {
    return this.slots.length;
  }

  /** Creates the environments not created yet. */
  async fill(): Promise<void> {
    while (this.slots.length < this.state.environmentCount) {
      const environment = await createEnvironment(this.state, this.slots.length);
      this.slots.push({ environment, agent: null, busy: false });
    }
  }

  /** A free environment for the memory size, waiting in line when all are busy. */
  async acquire(memoryMb: number): Promise<Slot> {
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

  release(slot: Slot): void {
    slot.busy = false;
    this.waiting.shift()?.();
  }

  /** Kills the agents and removes the environments (namespaces, veths, qdiscs, cgroups). */
  async dispose(): Promise<void> {
    for (const slot of this.slots) {
      await slot.agent?.kill();
      await removeEnvironment(slot.environment);
    }
    this.slots.length = 0;
  }
}
