import { hostname } from "node:os";
import type { Cell } from "../plan/cell.js";
import { expandPlan } from "../plan/expand-plan.js";
import type { Plan } from "../plan/plan-schema.js";
import { type Target, targetKey, targetName } from "../plan/platforms.js";
import type { RunManifest } from "../results/manifest.js";
import type { ResultRecord } from "../results/result-record.js";
import { createRunDirectory, ResultsWriter, readRecords, writeManifest } from "../results/run-directory.js";
import { defaultParallelism } from "./parallelism.js";
import type { Platform } from "./platform.js";
import { type RunnerEvent, runTarget } from "./run-target.js";
import { CompletedTasks, invocationCount, orderTasks } from "./task-order.js";
import { toolVersion } from "./tool-version.js";

export { defaultParallelism };

/** What opening a target needs besides the target itself. */
export interface OpenContext {
  /** The plan's custom lab profiles (validated with the plan); a `local` target may name one. */
  profiles: Plan["profiles"];
  /** `run --unshaped`: the lab on loopback without shaping (results labelled unshaped). */
  unshaped: boolean;
  /** The largest fleet (environments at once) among the target's cells. */
  environments?: number;
}

export type OpenPlatform = (target: Target, context: OpenContext) => Promise<Platform>;

export interface RunPlanOptions {
  /** A new run: the plan and where to create the run directory. */
  start?: { plan: Plan; parentDir: string; source: RunManifest["source"] };
  /** Or an interrupted run to complete: its directory and the manifest read from it. */
  resume?: { dir: string; manifest: RunManifest };
  openPlatform: OpenPlatform;
  /** Open lab targets unshaped (`run --unshaped`). */
  unshaped?: boolean;
  stop?: AbortSignal;
  abandon?: AbortSignal;
  onEvent?: (event: RunnerEvent | { type: "target"; target: string; tasks: number }) => void;
  /** Called once the directory exists and the total is known (before any invocation). */
  onStart?: (info: {
    dir: string;
    /** Invocations (a fleet group of N counts N). */
    totalTasks: number;
    remainingTasks: number;
    manifest: RunManifest;
  }) => void;
  now?: () => Date;
}

export interface RunPlanResult {
  dir: string;
  manifest: RunManifest;
  recorded: number;
  /** Planned invocations still missing (0 when the run is complete). */
  remaining: number;
  /** Planned invocations (warm-ups aside) recorded as failed, this session's and earlier ones. */
  failed: number;
}

/**
 * Executes a plan (or the rest of one) target after target, one platform open at a time,
 * appending every invocation to results.jsonl as it finishes. Targets run one after another
 * so that two lab profiles never compete for the same host CPU and links.
 */
export async function runPlan(options: RunPlanOptions): Promise<RunPlanResult> {
  const now = options.now ?? (() => new Date());
  let dir: string;
  let manifest: RunManifest;
  if (options.resume) {
    ({ dir, manifest } = options.resume);
  } else if (options.start) {
    const { plan, parentDir, source } = options.start;
    const createdAt = now();
    dir = await createRunDirectory(parentDir, plan.name, createdAt);
    manifest = {
      schemaVersion: 1,
      runId: dir.split("/").at(-1) as string,
      createdAt: createdAt.toISOString(),
      toolVersion: toolVersion(),
      nodeVersion: process.version,
      hostname: hostname(),
      source,
      plan,
      cells: expandPlan(plan),
      platforms: {},
      completedAt: null,
    };
    await writeManifest(dir, manifest);
  } else {
    throw new Error("runPlan: give start or resume");
  }

  const { records } = await readRecords(dir);
  const completed = new CompletedTasks(records);
  let failed = records.filter(isPlannedFailure).length;
  const done = completed.keys;
  const totalTasks = invocationCount(orderTasks(manifest.cells));
  options.onStart?.({
    dir,
    totalTasks,
    remainingTasks: invocationCount(orderTasks(manifest.cells, done)),
    manifest,
  });

  const writer = await ResultsWriter.open(dir);
  let recorded = 0;
  try {
    for (const target of manifest.plan.targets) {
      if (options.stop?.aborted) break;
      const key = targetKey(target);
      const cells = manifest.cells.filter((cell: Cell) => targetKey(cell.target) === key);
      const remaining = orderTasks(cells, done).length;
      if (remaining === 0) continue;
      options.onEvent?.({ type: "target", target: targetName(target), tasks: remaining });
      const platform = await options.openPlatform(target, {
        profiles: manifest.plan.profiles,
        unshaped: options.unshaped ?? false,
        environments: Math.max(1, ...cells.map((cell) => cell.environments ?? 1)),
      });
      try {
        manifest.platforms[key] = await platform.facts();
        await writeManifest(dir, manifest);
        const result = await runTarget({
          runId: manifest.runId,
          platform,
          cells,
          done,
          warmup: manifest.plan.warmup,
          parallelism: manifest.plan.parallelism ?? defaultParallelism(target),
          record: (record) => {
            writer.append(record);
            completed.add(record);
            if (isPlannedFailure(record)) failed += 1;
          },
          ...(options.stop ? { stop: options.stop } : {}),
          ...(options.abandon ? { abandon: options.abandon } : {}),
          ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        });
        recorded += result.recorded;
      } finally {
        await platform.dispose();
      }
    }
  } finally {
    writer.close();
  }
  const remaining = orderTasks(manifest.cells, done).length;
  if (remaining === 0 && manifest.completedAt === null) {
    manifest.completedAt = now().toISOString();
    await writeManifest(dir, manifest);
  }
  return { dir, manifest, recorded, remaining, failed };
}

function isPlannedFailure(record: ResultRecord): boolean {
  return !record.warmup && !record.ok;
}
