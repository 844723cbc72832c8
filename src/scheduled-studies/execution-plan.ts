import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { Cell } from "../plan/cell.js";
import type { Plan } from "../plan/plan-schema.js";
import type { RunManifest } from "../results/manifest.js";
import type { PlatformFacts } from "../results/platform-facts.js";
import { toolVersion } from "../runner/tool-version.js";
import { scheduleKeys } from "./schedule-naming.js";
import type { ScheduledTask, ScheduledWork } from "./scheduled-tasks.js";
import type { MapMode } from "./state-machine-definition.js";

/**
 * schedules/NAME/execution.json: what `schedule create` expanded, read by the recorder's
 * `begin` and `finish` steps. The manifest of every scheduled run is this manifest with the
 * run's id, start time and completion filled in.
 */
export interface ScheduleExecutionPlan {
  schemaVersion: 1;
  schedule: string;
  expression: string;
  mode: MapMode;
  manifest: Omit<RunManifest, "runId" | "createdAt" | "completedAt" | "hostname" | "nodeVersion">;
  warmups: ScheduledTask[];
  testObjectBytes: number[];
  /** The measured tasks; in distributed mode they are only in tasks.json (the ItemReader's input). */
  tasks: ScheduledTask[] | null;
  taskCount: number;
}

export function buildExecutionPlan(args: {
  name: string;
  expression: string;
  mode: MapMode;
  plan: Plan;
  source: RunManifest["source"];
  cells: Cell[];
  work: ScheduledWork;
  platforms: Record<string, PlatformFacts>;
}): ScheduleExecutionPlan {
  return {
    schemaVersion: 1,
    schedule: args.name,
    expression: args.expression,
    mode: args.mode,
    manifest: {
      schemaVersion: 1,
      toolVersion: toolVersion(),
      source: args.source,
      plan: args.plan,
      cells: args.cells,
      platforms: args.platforms,
    },
    warmups: args.work.warmups,
    testObjectBytes: args.work.testObjectBytes,
    tasks: args.mode === "inline" ? args.work.tasks : null,
    taskCount: args.work.tasks.length,
  };
}

/** Writes tasks.json (the ItemReader's input) and execution.json to the bucket. */
export async function writeExecutionPlan(
  s3: S3Client,
  bucket: string,
  plan: ScheduleExecutionPlan,
  tasks: ScheduledTask[],
): Promise<void> {
  const keys = scheduleKeys(plan.schedule);
  for (const [key, body] of [
    [keys.tasks, JSON.stringify(tasks)],
    [keys.execution, JSON.stringify(plan)],
  ] as const)
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: "application/json" }),
    );
}
