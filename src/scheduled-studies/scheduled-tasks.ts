import type { AgentEventInput } from "../agent/event.js";
import type { Cell } from "../plan/cell.js";
import { usesIperf3Server } from "../plan/plan-schema.js";
import { plannedProbe, testObjectSizes } from "../probes/registry.js";
import type { InvocationFailureKind } from "../results/invocation-outcome.js";
import { buildEvent } from "../runner/build-event.js";
import type { EnvironmentVariant, ProbeEndpoints } from "../runner/platform.js";
import { warmupCell } from "../runner/run-target.js";
import { orderTasks } from "../runner/task-order.js";

/**
 * One invocation of a scheduled run, as the state machine's Map receives it: the cell (so the
 * recorder builds the same ResultRecord `run` builds), the repetition, the agent's event already
 * built by the runner's own buildEvent, and the function (alias) to invoke. Everything is
 * expanded here, on the CLI's side; the state machine only iterates.
 */
export interface ScheduledTask {
  /** `lambda-netbench-agent:s-daily-m1024-arm64`: Invoke's FunctionName with the alias qualifier. */
  functionName: string;
  cell: Cell;
  /** 1-based; 0 for a warm-up. */
  repetition: number;
  /** null: nothing is invoked and the task is recorded with `skip` as its failure. */
  event: AgentEventInput | null;
  skip: { kind: InvocationFailureKind; message: string } | null;
}

export interface ScheduledWork {
  /** One info invocation per environment variant, before measuring (when the plan warms up). */
  warmups: ScheduledTask[];
  /** Sizes of the s3-get test objects to make sure of before measuring, bytes. */
  testObjectBytes: number[];
  /** Every measured invocation, in `run`'s order (repetition 1 of every cell, then 2, ...). */
  tasks: ScheduledTask[];
}

export interface ScheduledWorkOptions {
  cells: Cell[];
  warmup: boolean;
  endpoints: ProbeEndpoints;
  /** Key of the s3-get test object of each size (bytes). */
  objectKeys: ReadonlyMap<number, string>;
  /** Stands in for the run id in what the event carries (the s3-put key): fixed per schedule. */
  eventRunId: string;
  functionNameFor: (variant: EnvironmentVariant) => string;
  /** When set, iperf3 cells are not invoked but recorded with this message. */
  skipIperf3?: string;
}

export function buildScheduledWork(options: ScheduledWorkOptions): ScheduledWork {
  const plannedTasks = orderTasks(options.cells);
  const variants = new Map<string, EnvironmentVariant>();
  for (const { cell } of plannedTasks)
    variants.set(`${cell.memoryMb}/${cell.arch}`, { memoryMb: cell.memoryMb, arch: cell.arch });
  const first = options.cells[0];
  const warmups: ScheduledTask[] =
    options.warmup && first
      ? [...variants.values()].map((variant) => ({
          functionName: options.functionNameFor(variant),
          cell: warmupCell(first, variant),
          repetition: 0,
          event: { probe: "info" },
          skip: null,
        }))
      : [];
  const testObjectBytes = testObjectSizes(plannedTasks.map(({ cell }) => cell.probe));
  const ports = options.endpoints.iperf3?.ports ?? [];
  let iperf3Index = 0;
  const tasks = plannedTasks.map(({ cell, repetition }): ScheduledTask => {
    const functionName = options.functionNameFor({ memoryMb: cell.memoryMb, arch: cell.arch });
    const base = { functionName, cell, repetition };
    if (usesIperf3Server(cell.probe) && options.skipIperf3)
      return { ...base, event: null, skip: { kind: "platform", message: options.skipIperf3 } };
    try {
      // iperf3 servers take one test at a time per port: tasks take the ports in turn
      const port =
        usesIperf3Server(cell.probe) && ports.length > 0 ? ports[iperf3Index++ % ports.length] : undefined;
      const objectBytes = plannedProbe(cell.probe).testObjectBytes(cell.probe);
      const objectKey = objectBytes === null ? undefined : options.objectKeys.get(objectBytes);
      const event = buildEvent(cell, {
        runId: options.eventRunId,
        repetition,
        endpoints: options.endpoints,
        ...(port !== undefined ? { iperf3Port: port } : {}),
        ...(objectKey !== undefined ? { s3ObjectKey: objectKey } : {}),
      });
      return { ...base, event, skip: null };
    } catch (error) {
      return { ...base, event: null, skip: { kind: "platform", message: (error as Error).message } };
    }
  });
  return { warmups, testObjectBytes, tasks };
}
