import { randomUUID } from "node:crypto";
import { type Cell, stableHash } from "../plan/cell.js";
import { usesIperf3Server } from "../plan/plan-schema.js";
import { mebibyte } from "../probes/plan-fields.js";
import { plannedProbe, testObjectSizes } from "../probes/registry.js";
import type { InvocationOutcome } from "../results/invocation-outcome.js";
import { buildRecord, type ResultRecord } from "../results/result-record.js";
import { buildEvent } from "./build-event.js";
import { type EnvironmentVariant, type Platform, RunPausedError } from "./platform.js";
import { PortPool } from "./port-pool.js";
import { orderTasks, type Task } from "./task-order.js";
import { WeightedSlots } from "./weighted-slots.js";

export type RunnerEvent =
  | { type: "phase"; message: string }
  | { type: "started"; task: Task; inFlight: number }
  | { type: "recorded"; task: Task; record: ResultRecord }
  | { type: "abandoned"; task: Task };

export interface RunTargetOptions {
  runId: string;
  platform: Platform;
  /** The cells of this target only. */
  cells: Cell[];
  /** Keys (cellId#repetition) already recorded: skipped. */
  done: ReadonlySet<string>;
  warmup: boolean;
  /** Upper bound from the plan; the platform's maxConcurrency() applies too. */
  parallelism?: number;
  /** Durable sink: called once per finished invocation, before the next task is taken. */
  record: (record: ResultRecord) => void;
  /** Stop taking new tasks; in-flight invocations finish and are recorded. */
  stop?: AbortSignal;
  /** Abandon in-flight invocations too (second Ctrl-C); they are not recorded and run again on resume. */
  abandon?: AbortSignal;
  onEvent?: (event: RunnerEvent) => void;
}

export interface RunTargetResult {
  recorded: number;
  abandoned: number;
  /** Tasks never started because of stop. */
  notStarted: number;
}

/**
 * Runs one target's share of the plan: prepares the environments, creates the S3 test objects,
 * warms up, then invokes every remaining task with bounded parallelism (never more than the
 * platform allows, never two iperf3 tests on one server port) and records each as it finishes.
 */
export async function runTarget(options: RunTargetOptions): Promise<RunTargetResult> {
  const { platform, cells, runId } = options;
  const emit = options.onEvent ?? (() => {});
  const tasks = orderTasks(cells, options.done);
  const result: RunTargetResult = { recorded: 0, abandoned: 0, notStarted: 0 };
  if (tasks.length === 0) return result;

  const fleetProblems = fleetCapacityProblems(platform, tasks);
  if (fleetProblems.length > 0) throw new FleetCapacityError(fleetProblems);

  const variants = uniqueVariants(tasks.map((task) => task.cell));
  emit({
    type: "phase",
    message: `preparing ${variants.length} environment variant(s) on ${platform.target}`,
  });
  await platform.prepare(variants);
  const endpoints = platform.endpoints();
  const portProblems = fleetPortProblems(tasks, endpoints.iperf3?.ports.length ?? null);
  if (portProblems.length > 0) throw new FleetCapacityError(portProblems);

  const objectKeys = new Map<number, string | Error>();
  for (const bytes of testObjectSizes(tasks.map((t) => t.cell.probe))) {
    if (options.stop?.aborted) break;
    emit({
      type: "phase",
      message: `making sure the ${bytes / mebibyte} MiB test object exists on ${platform.target}`,
    });
    try {
      objectKeys.set(bytes, await platform.ensureTestObject(bytes));
    } catch (error) {
      if (error instanceof RunPausedError) throw error;
      objectKeys.set(bytes, error instanceof Error ? error : new Error(String(error)));
    }
  }

  const parallelism = Math.max(
    1,
    Math.min(options.parallelism ?? Number.POSITIVE_INFINITY, platform.maxConcurrency()),
  );

  const ports = new PortPool(endpoints.iperf3?.ports ?? []);

  if (options.warmup && !options.stop?.aborted) {
    emit({ type: "phase", message: `warming up ${variants.length} environment(s) on ${platform.target}` });
    const warmups = variants.flatMap((variant) =>
      Array.from({ length: largestFleet(tasks, variant) }, () => ({
        cell: warmupCell(cells[0] as Cell, variant),
        repetition: 0,
      })),
    );
    await runPool(
      warmups,
      parallelism,
      async (task) => {
        const outcome = await invokeSafely(platform, task.cell, { probe: "info" }, options.abandon);
        if (options.abandon?.aborted) return;
        options.record(buildRecord({ runId, cell: task.cell, repetition: 0, outcome }));
      },
      options.stop,
    );
  }

  let inFlight = 0;
  const slots = new WeightedSlots(parallelism);
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  let started = 0;
  for (const task of tasks) {
    if (options.stop?.aborted || failure !== null) break;
    const size = fleetSize(task.cell);
    const taken = await slots.acquire(size);
    if (options.stop?.aborted || failure !== null) {
      slots.release(taken);
      break;
    }
    started += 1;
    const run: Promise<void> = runGroup(task, size)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => {
        slots.release(taken);
        running.delete(run);
      });
    running.add(run);
  }
  await Promise.all([...running]);
  if (failure !== null) throw failure;
  result.notStarted = tasks.length - started;
  return result;

  /** One repetition of a cell: one invocation, or a fleet of `size` invoked at once. */
  async function runGroup(task: Task, size: number): Promise<void> {
    const isIperf3 = usesIperf3Server(task.cell.probe) && endpoints.iperf3 !== undefined;
    let groupPorts: number[] = [];
    if (isIperf3) {
      if (ports.size === 0) throw new Error(`${platform.target}: endpoints().iperf3.ports is empty`);
      groupPorts = await ports.acquireMany(size);
    }
    inFlight += size;
    emit({ type: "started", task, inFlight });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: size }, (_, index) => invokeTask(task, groupPorts[index])),
      );
      const failed = outcomes.some((o) => o.failure !== null || o.response?.ok !== true);
      // Ctrl-C reaches the platform's child processes too: a failure that comes back after a
      // stop was asked for is most likely the interrupt itself, so it runs again on resume.
      if (options.abandon?.aborted || (options.stop?.aborted && failed)) {
        result.abandoned += 1;
        emit({ type: "abandoned", task });
        return;
      }
      const groupId = size > 1 ? `${task.cell.id}-${task.repetition}-${randomUUID().slice(0, 8)}` : null;
      outcomes.forEach((outcome, index) => {
        const record = buildRecord({
          runId,
          cell: task.cell,
          repetition: task.repetition,
          outcome,
          ...(groupId !== null ? { group: { id: groupId, size, index } } : {}),
        });
        options.record(record);
        emit({ type: "recorded", task, record });
      });
      result.recorded += size;
    } finally {
      inFlight -= size;
      for (const port of groupPorts) ports.release(port);
    }
  }

  async function invokeTask(task: Task, port: number | undefined): Promise<InvocationOutcome> {
    const startedAt = new Date().toISOString();
    let event: ReturnType<typeof buildEvent>;
    try {
      const probe = task.cell.probe;
      const objectBytes = plannedProbe(probe).testObjectBytes(probe);
      const objectKey = objectBytes === null ? undefined : objectKeys.get(objectBytes);
      if (objectKey instanceof Error) throw new Error(`test object: ${objectKey.message}`);
      event = buildEvent(task.cell, {
        runId,
        repetition: task.repetition,
        endpoints,
        ...(port !== undefined ? { iperf3Port: port } : {}),
        ...(objectKey !== undefined ? { s3ObjectKey: objectKey } : {}),
      });
    } catch (error) {
      return {
        response: null,
        failure: { kind: "platform", message: (error as Error).message },
        startedAt,
        durationSeconds: 0,
      };
    }
    return invokeSafely(platform, task.cell, event, options.abandon);
  }
}

/** A platform that throws is recorded as a platform failure rather than ending the run. */
async function invokeSafely(
  platform: Platform,
  cell: Cell,
  event: Parameters<Platform["invoke"]>[1],
  abandon: AbortSignal | undefined,
): Promise<InvocationOutcome> {
  const startedAt = new Date().toISOString();
  const startMs = performance.now();
  try {
    return await platform.invoke(variantOf(cell), event, abandon ? { signal: abandon } : {});
  } catch (error) {
    // the run must stop for the user (expired login, server gone): not a result, not recorded
    if (error instanceof RunPausedError) throw error;
    return {
      response: null,
      failure: { kind: "platform", message: error instanceof Error ? error.message : String(error) },
      startedAt,
      durationSeconds: (performance.now() - startMs) / 1000,
    };
  }
}

/**
 * Runs `work` over the items with at most `parallelism` at once, in order; stops taking items
 * when `stop` fires. Returns how many were started.
 */
async function runPool<T>(
  items: T[],
  parallelism: number,
  work: (item: T) => Promise<void>,
  stop: AbortSignal | undefined,
): Promise<number> {
  let next = 0;
  let paused: RunPausedError | null = null;
  const worker = async () => {
    while (next < items.length && !stop?.aborted && paused === null) {
      const item = items[next] as T;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        // the others finish what they started (and record it); nobody takes new work
        if (!(error instanceof RunPausedError)) throw error;
        paused ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, items.length) }, worker));
  if (paused) throw paused;
  return next;
}

/** What the platform provides for a cell: memory, architecture and, on AWS, the VPC variant. */
export function variantOf(cell: Cell): EnvironmentVariant {
  return { memoryMb: cell.memoryMb, arch: cell.arch, ...(cell.vpc ? { vpc: true } : {}) };
}

function sameVariant(a: EnvironmentVariant, b: EnvironmentVariant): boolean {
  return a.memoryMb === b.memoryMb && a.arch === b.arch && (a.vpc ?? false) === (b.vpc ?? false);
}

function uniqueVariants(cells: Cell[]): EnvironmentVariant[] {
  const variants = new Map<string, EnvironmentVariant>();
  for (const cell of cells)
    variants.set(`${cell.memoryMb}/${cell.arch}/${cell.vpc ?? false}`, variantOf(cell));
  return [...variants.values()];
}

/** The pseudo-cell a warm-up invocation is recorded under (repetition 0, excluded from statistics). */
export function warmupCell(template: Cell, variant: EnvironmentVariant): Cell {
  return {
    id: `warmup-${stableHash({ target: template.target, ...variant })}`,
    target: template.target,
    memoryMb: variant.memoryMb,
    arch: variant.arch,
    probe: { kind: "info" },
    probeKey: "warmup",
    probeLabel: "warm-up",
    repetitions: 1,
    ...(variant.vpc ? { vpc: true } : {}),
  };
}

function fleetSize(cell: Cell): number {
  return cell.environments ?? 1;
}

function largestFleet(tasks: Task[], variant: EnvironmentVariant): number {
  let largest = 1;
  for (const { cell } of tasks)
    if (sameVariant(variantOf(cell), variant)) largest = Math.max(largest, fleetSize(cell));
  return largest;
}

/** Fleets this platform cannot run at once, each as a sentence naming the cell and the limit. */
export function fleetCapacityProblems(platform: Platform, tasks: Task[]): string[] {
  const problems = new Map<string, string>();
  for (const { cell } of tasks) {
    const size = fleetSize(cell);
    if (size <= 1) continue;
    const key = `${cell.memoryMb}/${cell.arch}/${size}`;
    if (problems.has(key)) continue;
    const limit = platform.maxConcurrency();
    const problem =
      size > limit
        ? `environments: ${size} at once, but ${platform.target} runs at most ${limit} invocations at once`
        : (platform.fleetCapacityProblem?.(variantOf(cell), size) ?? null);
    if (problem) problems.set(key, `${cell.memoryMb} MB ${cell.arch}: ${problem}`);
  }
  return [...problems.values()];
}

/** iperf3 fleets need a server port per member: one test at a time per port. */
export function fleetPortProblems(tasks: Task[], serverPorts: number | null): string[] {
  if (serverPorts === null) return [];
  const largest = Math.max(
    0,
    ...tasks.filter((t) => usesIperf3Server(t.cell.probe)).map((t) => fleetSize(t.cell)),
  );
  return largest > serverPorts
    ? [
        `environments: ${largest} iperf3 tests at once need ${largest} server ports, the iperf3 server has ${serverPorts} (AWS: deploy --with-server --server-ports ${largest}; lab: lab up --environments ${largest})`,
      ]
    : [];
}

export class FleetCapacityError extends Error {
  constructor(readonly problems: string[]) {
    super(`this platform cannot hold these fleets:\n  ${problems.join("\n  ")}`);
    this.name = "FleetCapacityError";
  }
}
