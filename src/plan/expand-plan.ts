import { lambdaArchitectureName } from "../probes/info.js";
import type { Architecture } from "./architecture.js";
import { type Cell, cellId, probeKey, probeLabel } from "./cell.js";
import type { Plan } from "./plan-schema.js";
import { platformNamed } from "./platforms.js";

/** This machine's architecture in Lambda's words: the only one the local lab can run. */
export function hostArchitecture(): Architecture {
  return lambdaArchitectureName(process.arch) === "arm64" ? "arm64" : "x86_64";
}

/**
 * The plan as a list of cells, in a fixed order: target, then architecture, memory, VPC variant,
 * fleet size and probe.
 * Pure; the same plan always gives the same cells with the same ids.
 * Two probes with the same parameters would be one cell twice: refused.
 * Lab targets run on `localArch` (the host's architecture) whatever `architectures` says: the
 * lab emulates the network and the CPU share, not another instruction set.
 */
export function expandPlan(plan: Plan, localArch: Architecture = hostArchitecture()): Cell[] {
  const cells: Cell[] = [];
  const seen = new Set<string>();
  for (const target of plan.targets) {
    const platform = platformNamed(target.platform);
    for (const arch of platform.architectures(plan.architectures, localArch)) {
      for (const memoryMb of plan.memoryMb) {
        for (const vpc of platform.vpcVariants ? plan.vpc : [false]) {
          for (const environments of plan.environments) {
            const axes = { environments, vpc };
            plan.probes.forEach((probe, index) => {
              const id = cellId(target, memoryMb, arch, probe, axes);
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
                probeKey: probeKey(probe, axes),
                probeLabel: probeLabel(probe, axes),
                repetitions: probe.repetitions ?? plan.repetitions,
                environments,
                ...(vpc ? { vpc } : {}),
              });
            });
          }
        }
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
