import type { RunManifest } from "../../../results/manifest.js";
import type { ScheduledTask } from "./scheduled-tasks.js";
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
