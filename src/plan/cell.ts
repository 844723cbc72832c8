import { createHash } from "node:crypto";
import { plannedProbe } from "../probes/registry.js";
import type { Architecture } from "./architecture.js";
import type { ProbeSpec, Target } from "./plan-schema.js";

/** One condition of the matrix: a target, an environment variant and one probe with its parameters. */
export interface Cell {
  /** Stable hash of target + memory + arch + probe + params: the same condition gets the same id in every run. */
  id: string;
  target: Target;
  memoryMb: number;
  arch: Architecture;
  probe: ProbeSpec;
  /** Probe parameters only (no repetitions or label): groups the cells of one curve across memory sizes. */
  probeKey: string;
  /** Human label of the probe, e.g. "iperf3 upload -P 4 -t 10s". */
  probeLabel: string;
  repetitions: number;
  /** Environments invoked at once for each repetition (1: one alone). Absent in runs made before fleets. */
  environments?: number;
  /** The function attached to a VPC (AWS only). Absent in runs made before the VPC axis: false. */
  vpc?: boolean;
}

/** The invocations a cell plans: each repetition invokes every environment of its fleet. */
export function plannedInvocations(cell: Pick<Cell, "repetitions" | "environments">): number {
  return cell.repetitions * (cell.environments ?? 1);
}

/** The axes beside memory and arch that make a cell: fleet size and VPC variant. */
export interface CellAxes {
  environments?: number;
  vpc?: boolean;
}

/** The parameters that define what is measured (not how often or what it is called). */
export function probeParameters(probe: ProbeSpec): Record<string, unknown> {
  const { repetitions: _repetitions, label: _label, ...parameters } = probe;
  return parameters;
}

// The axes join the hashes only away from their defaults (1 environment, no VPC), so cells of
// runs made before those axes existed keep their ids.
export function cellId(
  target: Target,
  memoryMb: number,
  arch: Architecture,
  probe: ProbeSpec,
  axes: CellAxes = {},
): string {
  return stableHash({ target, memoryMb, arch, probe: probeParameters(probe), ...axesKey(axes) });
}

/** Groups the cells of one curve across memory sizes: the probe's parameters, fleet size and VPC variant. */
export function probeKey(probe: ProbeSpec, axes: CellAxes = {}): string {
  const key = axesKey(axes);
  return Object.keys(key).length === 0
    ? stableHash(probeParameters(probe))
    : stableHash({ ...probeParameters(probe), ...key });
}

function axesKey(axes: CellAxes): { environments?: number; vpc?: true } {
  return {
    ...((axes.environments ?? 1) !== 1 ? { environments: axes.environments } : {}),
    ...(axes.vpc ? { vpc: true as const } : {}),
  };
}

export function probeLabel(probe: ProbeSpec, axes: CellAxes = {}): string {
  const environments = axes.environments ?? 1;
  return `${singleLabel(probe)}${axes.vpc ? " in VPC" : ""}${environments === 1 ? "" : ` x${environments} envs`}`;
}

function singleLabel(probe: ProbeSpec): string {
  return probe.label ?? plannedProbe(probe).label(probe);
}

/** SHA-256 of canonical JSON (keys sorted at every level), first 12 hex digits. */
export function stableHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 12);
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
