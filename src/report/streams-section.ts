import type { StreamsSweep } from "../results/streams-sweeps.js";
import { markdownTable } from "./tables.js";
import { wrap } from "./text-layout.js";

/**
 * The streams-sweep section of a run's output: per sweep, the sustained aggregate at each stream
 * count and the per-flow cap fit (detected with its spread, or "none seen"). Its own section,
 * beside the summary tables. Pure.
 */
const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e6).toLocaleString("en-US");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function sweepTitle(sweep: StreamsSweep): string {
  return `${sweep.target} ${sweep.arch} ${sweep.memoryMb.toLocaleString("en-US")} MB ${sweep.description}`;
}

function pointsText(sweep: StreamsSweep): string {
  return sweep.points
    .map(
      (p) =>
        `${p.streams}: ${mbps(median(p.bitsPerSecond))}${p.bitsPerSecond.length > 1 ? ` (n=${p.bitsPerSecond.length})` : ""}`,
    )
    .join(", ");
}

/** The sweeps for a terminal (and summary.txt), every line within `width` columns. */
export function streamsTextLines(sweeps: readonly StreamsSweep[], width: number): string[] {
  if (sweeps.length === 0) return [];
  const lines = [
    "",
    ...wrap(
      "Streams sweeps (sustained aggregate Mbit/s by stream count; fit: aggregate = min(quota, streams x per-flow cap))",
      width,
    ),
  ];
  for (const sweep of sweeps)
    lines.push(
      ...wrap(`- ${sweepTitle(sweep)}: ${pointsText(sweep)}`, width, "    "),
      ...wrap(`  ${sweep.fit.summary}`, width, "    "),
    );
  return lines;
}

export function renderStreamsMarkdown(sweeps: readonly StreamsSweep[]): string {
  if (sweeps.length === 0) return "";
  const out = [
    "## Streams sweeps",
    "",
    "Sustained aggregate rate by number of parallel TCP connections, fitted as aggregate = min(quota, streams x per-flow cap).",
    "",
    ...markdownTable(
      ["Sweep", "Sustained aggregate by streams (Mbit/s)", "Per-flow cap"],
      sweeps.map((sweep) => [
        sweepTitle(sweep),
        pointsText(sweep),
        sweep.fit.summary.replace(/^per-flow cap: /, ""),
      ]),
    ),
  ];
  return `${out.join("\n")}\n`;
}

/** streams.md, the sweeps on a page of their own beside report.md; null when the run has none. */
export function renderStreamsPage(sweeps: readonly StreamsSweep[]): string | null {
  if (sweeps.length === 0) return null;
  return `# Streams sweeps\n\n${renderStreamsMarkdown(sweeps).replace(/^## Streams sweeps\n\n/, "")}`;
}
