import type { Cell } from "../plan/cell.js";
import type { Plan } from "../plan/plan-schema.js";
import type { PlatformFacts } from "./platform-facts.js";

/** manifest.json of a run directory: what was planned, with which tool, on what. */
export interface RunManifest {
  schemaVersion: 1;
  runId: string;
  createdAt: string;
  toolVersion: string;
  nodeVersion: string;
  hostname: string;
  /** How the plan was chosen: preset name or config path, and --regions. */
  source: { preset: string | null; configPath: string | null; regions: string[] | null };
  plan: Plan;
  cells: Cell[];
  /** Facts of each target's platform, by target key ("local:default-625"), filled as targets open. */
  platforms: Record<string, PlatformFacts>;
  /** Set when every planned invocation is recorded. */
  completedAt: string | null;
}
