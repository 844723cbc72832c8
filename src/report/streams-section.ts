import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readRecords } from "../results/run-directory.js";
import { type StreamsSweep, streamsSweeps } from "../results/streams-sweeps.js";
import { wrap } from "./text-layout.js";

/**
 * The streams-sweep section of a run's output: per sweep, the aggregate at each stream count and
 * the per-flow cap fit (detected with its spread, or "none seen"). Its own section, beside the
 * summary tables. Pure.
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

/** The sweeps for a terminal, wrapped to `width` columns. */
export function renderStreamsText(sweeps: readonly StreamsSweep[], width = 100): string {
  if (sweeps.length === 0) return "";
  const lines = wrap(
    "Streams sweeps (aggregate Mbit/s by stream count; fit: aggregate = min(quota, streams x per-flow cap))",
    width,
  );
  for (const sweep of sweeps) {
    lines.push(
      ...wrap(`- ${sweepTitle(sweep)}: ${pointsText(sweep)}`, width, "    "),
      ...wrap(`  ${sweep.fit.summary}`, width, "    "),
    );
  }
  return `${lines.join("\n")}\n`;
}

export function renderStreamsMarkdown(sweeps: readonly StreamsSweep[]): string {
  if (sweeps.length === 0) return "";
  const out = [
    "## Streams sweeps",
    "",
    "Aggregate rate by number of parallel TCP connections, fitted as aggregate = min(quota, streams x per-flow cap).",
    "",
    "| Sweep | Aggregate by streams (Mbit/s) | Per-flow cap |",
    "| :--- | :--- | :--- |",
  ];
  for (const sweep of sweeps) {
    out.push(
      `| ${sweepTitle(sweep)} | ${pointsText(sweep)} | ${sweep.fit.summary.replace(/^per-flow cap: /, "")} |`,
    );
  }
  return `${out.join("\n")}\n`;
}

/**
 * The streams section of a run directory: its text (empty when the run has no sweep) and
 * `streams.md` written beside the other reports when it has one. Returns the paths written.
 */
export async function writeStreamsSection(
  runDir: string,
  width = 100,
): Promise<{ text: string; written: string[] }> {
  const { records } = await readRecords(runDir);
  const sweeps = streamsSweeps(records);
  if (sweeps.length === 0) return { text: "", written: [] };
  const path = join(runDir, "streams.md");
  await writeFile(
    path,
    `# Streams sweeps\n\n${renderStreamsMarkdown(sweeps).replace(/^## Streams sweeps\n\n/, "")}`,
  );
  return { text: renderStreamsText(sweeps, width), written: [path] };
}
