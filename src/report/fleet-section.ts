import type { FleetPoint } from "../results/fleet-analysis.js";
import type { Spread } from "../results/statistics.js";
import { spreadMinimumRepetitions } from "./statistics-display.js";
import { markdownSection, markdownTable, textTable } from "./tables.js";
import { wrap } from "./text-layout.js";
import { formatMbps, formatNumber } from "./units.js";

/**
 * The fleet table: for each probe and memory size, the rate of one environment and of the
 * whole group against N environments at once. Presentation only.
 */
export interface FleetColumn {
  header: string;
  text: (point: FleetPoint) => string;
  raw: (point: FleetPoint) => string | number | null;
  align: "left" | "right";
}

function spreadText(spread: Spread | null): string {
  if (!spread) return "–";
  const range =
    spread.n >= spreadMinimumRepetitions ? ` [${formatMbps(spread.min)}-${formatMbps(spread.max)}]` : "";
  return `${formatMbps(spread.median)}${range} n=${spread.n}`;
}

export const fleetColumns: FleetColumn[] = [
  { header: "Target", text: (p) => p.target, raw: (p) => p.target, align: "left" },
  { header: "Probe", text: (p) => p.probeLabel, raw: (p) => p.probeLabel, align: "left" },
  { header: "Memory (MB)", text: (p) => formatNumber(p.memoryMb), raw: (p) => p.memoryMb, align: "right" },
  {
    header: "Environments at once",
    text: (p) => String(p.environments),
    raw: (p) => p.environments,
    align: "right",
  },
  {
    header: "Per environment (Mbit/s) median [min-max] n",
    text: (p) => spreadText(p.perEnvironment),
    raw: (p) => (p.perEnvironment ? p.perEnvironment.median / 1e6 : null),
    align: "right",
  },
  {
    header: "Aggregate (Mbit/s) median [min-max] n",
    text: (p) => spreadText(p.aggregate),
    raw: (p) => (p.aggregate ? p.aggregate.median / 1e6 : null),
    align: "right",
  },
  {
    header: "Aggregate / (N x alone)",
    text: (p) => (p.scaling === null ? "–" : formatNumber(p.scaling, 2)),
    raw: (p) => p.scaling,
    align: "right",
  },
  {
    header: "Distinct environments",
    text: (p) => (p.distinctEnvironments === null ? "–" : formatNumber(p.distinctEnvironments)),
    raw: (p) => p.distinctEnvironments,
    align: "right",
  },
  {
    header: "Shared window (% of a transfer)",
    text: (p) => (p.overlapShare === null ? "–" : `${formatNumber(p.overlapShare * 100)}%`),
    raw: (p) => p.overlapShare,
    align: "right",
  },
  {
    header: "Groups left out",
    text: (p) => String(p.groupsLeftOut),
    raw: (p) => p.groupsLeftOut,
    align: "right",
  },
];

/** How to read the table: printed under it in every format. */
export const fleetNote =
  "Per environment: each invocation's sustained rate (after its own burst), median over environments and repetitions. " +
  "Aggregate: the bytes the whole group moved inside the window in which every member was transferring past its burst, " +
  "over that window (not a sum of averages); median over repetitions. A group is left out when a member " +
  "failed or the members shared less than half of a transfer.";

/** Plain-text lines of the fleet table (empty when the run has no fleets). */
export function fleetTextLines(points: readonly FleetPoint[]): string[] {
  if (points.length === 0) return [];
  return [
    "",
    "Environments at once (fleets)",
    ...textTable(
      fleetColumns,
      points.map((p) => fleetColumns.map((c) => c.text(p))),
    ),
    fleetNote,
  ];
}

/** The fleet results for a terminal: one wrapped sentence per probe, memory size and fleet size. */
export function fleetCompactLines(points: readonly FleetPoint[], width: number): string[] {
  if (points.length === 0) return [];
  const lines = ["", "Environments at once (fleets), sustained Mbit/s"];
  for (const p of points)
    lines.push(
      ...wrap(
        `  ${p.target} ${p.probeLabel} ${formatNumber(p.memoryMb)} MB x${p.environments}: per environment ${spreadText(p.perEnvironment)}, aggregate ${spreadText(p.aggregate)}${p.scaling === null ? "" : ` (${formatNumber(p.scaling, 2)} x N alone)`}`,
        width,
        "      ",
      ),
    );
  lines.push(...wrap(fleetNote, width));
  return lines;
}

export function fleetMarkdownLines(points: readonly FleetPoint[]): string[] {
  if (points.length === 0) return [];
  return markdownSection(
    "Environments at once (fleets)",
    markdownTable(
      fleetColumns,
      points.map((p) => fleetColumns.map((c) => c.text(p))),
    ),
    fleetNote,
  );
}
