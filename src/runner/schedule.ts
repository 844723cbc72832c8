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
export function scheduleTasks(cells: Cell[], done: ReadonlySet<string> = new Set()): Task[] {
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
