import { type Cell, cellId, probeKey, probeLabel } from "./cell.js";
import type { Plan } from "./plan-schema.js";

/**
 * The plan as a list of cells, in a fixed order: target, then architecture, memory and probe.
 * Pure; the same plan always gives the same cells with the same ids.
 * Two probes with the same parameters would be one cell twice: refused.
 */
export function expandPlan(plan: Plan): Cell[] {
  const cells: Cell[] = [];
  const seen = new Set<string>();
  for (const target of plan.targets) {
    for (const arch of plan.architectures) {
      for (const memoryMb of plan.memoryMb) {
        plan.probes.forEach((probe, index) => {
          const id = cellId(target, memoryMb, arch, probe);
          if (seen.has(id)) {
            throw new PlanError([
              `probes.${index}: the same probe with the same parameters appears twice (or a target twice)`,
            ]);
          }
          seen.add(id);
          cells.push({
            id,
            target,
            memoryMb,
            arch,
            probe,
            probeKey: probeKey(probe),
            probeLabel: probeLabel(probe),
            repetitions: probe.repetitions ?? plan.repetitions,
          });
        });
      }
    }
  }
  return cells;
}

export class PlanError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`invalid plan:\n  ${problems.join("\n  ")}`);
    this.name = "PlanError";
    this.problems = problems;
  }
}
