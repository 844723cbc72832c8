import { expandPlan } from "../plan/expand-plan.js";
import type { Plan } from "../plan/plan-schema.js";
import type { EnvironmentVariant } from "../runner/platform.js";
import type { ScheduleTemplateOptions } from "./schedule-template.js";
import type { ScheduledWork } from "./scheduled-tasks.js";
import { chooseMapMode, type MapMode } from "./state-machine-definition.js";

/**
 * The offline part of a schedule, pure: which variants it publishes, the nested stack's
 * template options, and what one run costs in state transitions. `--print-template`, the dry
 * run and `schedule create` share it, so what they show is what create makes.
 */
export const iperf3SkipMessage =
  "skipped: scheduled runs keep no iperf3 server between runs (the deploy server terminates itself after its TTL); iperf3 cells are recorded, not run (docs/aws.md, Scheduled studies)";

/**
 * State transitions of one run: 5 per invoked task (Stamp, Dispatch, Invoke, Received, Record),
 * 4 per skipped one, 1 per test object, and the top level's 9 (Begin, EnsureTestObjects, WarmUp,
 * Measure, Finish, Complete, Done, plus the Maps' own). A Distributed Map adds its child executions'
 * start and end per task.
 */
export function stateTransitionsPerRun(work: ScheduledWork, mode: MapMode): number {
  const perTask = (task: { event: unknown }) =>
    (task.event === null ? 4 : 5) + (mode === "distributed" ? 2 : 0);
  return (
    9 +
    work.testObjectBytes.length +
    work.warmups.reduce((sum, task) => sum + perTask(task) - (mode === "distributed" ? 2 : 0), 0) +
    work.tasks.reduce((sum, task) => sum + perTask(task), 0)
  );
}

export interface ScheduleShape {
  name: string;
  expression: string;
  timezone: string;
  plan: Plan;
  parallelism: number;
  agentTimeoutSeconds: number;
}

export interface PlannedSchedule {
  templateOptions: ScheduleTemplateOptions;
  variants: EnvironmentVariant[];
  cells: ReturnType<typeof expandPlan>;
  /** Invocations of one run (the cells' repetitions), warm-ups not counted. */
  taskCount: number;
}

/** About 1.5 KB per task (the cell and its event), until the task list is built and measured. */
const estimatedBytesPerTask = 1_500;

/** Expands the plan once; the Map mode is chosen on an estimated task-list size. */
export function planSchedule(options: ScheduleShape): PlannedSchedule {
  const cells = expandPlan(options.plan);
  const variants = [
    ...new Map(
      cells.map((cell) => [`${cell.memoryMb}/${cell.arch}`, { memoryMb: cell.memoryMb, arch: cell.arch }]),
    ).values(),
  ];
  const taskCount = cells.reduce((sum, cell) => sum + cell.repetitions, 0);
  return {
    cells,
    variants,
    taskCount,
    templateOptions: {
      name: options.name,
      expression: options.expression,
      timezone: options.timezone,
      variants,
      maxConcurrency: options.parallelism,
      mode: chooseMapMode(taskCount * estimatedBytesPerTask, taskCount, options.parallelism),
      agentTimeoutSeconds: options.agentTimeoutSeconds,
    },
  };
}

/** The Map mode again, on the task list's measured size (create knows it; the offline views estimate). */
export function withMeasuredTaskList(
  planned: PlannedSchedule,
  taskListBytes: number,
): ScheduleTemplateOptions {
  const { templateOptions } = planned;
  return {
    ...templateOptions,
    mode: chooseMapMode(taskListBytes, planned.taskCount, templateOptions.maxConcurrency),
  };
}
