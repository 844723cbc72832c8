import type { Cell } from "../plan/cell.js";

/** One invocation to make: a cell's n-th repetition. */
export interface Task {
  cell: Cell;
  repetition: number;
}

export function taskKey(cellId: string, repetition: number): string {
  return `${cellId}#${repetition}`;
}

/**
 * The order of invocations: repetition 1 of every cell, then repetition 2 of every cell, ...
 * (interleaved, so slow drift of the platform spreads evenly over the cells instead of
 * landing on the last ones). Tasks already recorded (`done`) are left out: that is resume.
 */
export function orderTasks(cells: Cell[], done: ReadonlySet<string> = new Set()): Task[] {
  const rounds = Math.max(0, ...cells.map((cell) => cell.repetitions));
  const tasks: Task[] = [];
  for (let repetition = 1; repetition <= rounds; repetition += 1) {
    for (const cell of cells) {
      if (repetition <= cell.repetitions && !done.has(taskKey(cell.id, repetition))) {
        tasks.push({ cell, repetition });
      }
    }
  }
  return tasks;
}

/** Invocations the tasks make: a fleet group of N environments makes N. */
export function invocationCount(tasks: readonly Task[]): number {
  return tasks.reduce((sum, task) => sum + (task.cell.environments ?? 1), 0);
}

/** What a record says about its task (the fields completion depends on). */
export interface RecordedTask {
  warmup: boolean;
  cellId: string;
  repetition: number;
  /** Absent in records made before fleets: 1. */
  environments?: number;
  groupId?: string | null;
}

/**
 * The tasks a run has recorded. A fleet group counts only when all its environments were
 * recorded under one group id: a group cut short by a crash runs again whole, because its
 * survivors did not run beside the others they were meant to.
 */
export class CompletedTasks {
  readonly keys = new Set<string>();
  private readonly groupMembers = new Map<string, number>();

  constructor(records: Iterable<RecordedTask> = []) {
    for (const record of records) this.add(record);
  }

  add(record: RecordedTask): void {
    if (record.warmup) return;
    const size = record.environments ?? 1;
    if (size <= 1 || !record.groupId) {
      this.keys.add(taskKey(record.cellId, record.repetition));
      return;
    }
    const members = (this.groupMembers.get(record.groupId) ?? 0) + 1;
    this.groupMembers.set(record.groupId, members);
    if (members === size) this.keys.add(taskKey(record.cellId, record.repetition));
  }
}
