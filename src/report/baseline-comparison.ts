import { isEmulated } from "../plan/platforms.js";
import type { CellStatistics } from "../results/analysis.js";
import type { BaselineFigure } from "../results/baseline.js";
import { rateHeaders } from "./rate-words.js";
import type { BaselineOverlay, ReportModel } from "./report-model.js";
import { markdownTable, type TableColumn, textTable } from "./tables.js";
import { renderPivot, wrap } from "./text-layout.js";
import { formatMbps, formatNumber } from "./units.js";

/**
 * This run beside a published baseline (`compare RUN --baseline NAME`, and a section of the md
 * and html reports): for each figure the study states, our cell of the same target, probe and
 * memory size. A percentage only where the method is the study's own: the same duration (and
 * omitted seconds), object size, chunk and concurrency, and the same figure of ours as it kept
 * (iperf3: the end sum of the side it kept, sum_sent for its upload; s3-get: seconds per object
 * timed as it timed them, whole for its boto3 download). Otherwise the study's figure stands
 * beside ours with no percentage, and the row says what differs. Pure.
 */
export interface BaselineRow {
  target: string;
  baselineRegion: string;
  probeLabel: string;
  arch: string;
  memoryMb: number;
  cell: CellStatistics | null;
  figure: BaselineFigure;
  /** What of ours is set against the study's figure, and the difference in % of the study's; null when not compared. */
  comparedAs: string | null;
  deltaPercent: number | null;
  /** How our measurement differs from the study's method (each a phrase); empty when it is the same. */
  differences: string[];
  /** For a lab target: the per-connection caps the profile emulates (the study's region had its own); null on AWS. */
  emulation: string | null;
}

export interface BaselineComparison {
  runId: string;
  label: string | null;
  baseline: string;
  source: string;
  studyPeriod: string;
  rows: BaselineRow[];
}

export function compareWithBaseline(model: ReportModel): BaselineComparison | null {
  if (!model.baseline) return null;
  const rows: BaselineRow[] = [];
  for (const overlay of model.baseline.overlays) {
    for (const figure of overlay.series.figures) {
      const cell =
        model.analysis.cells.find(
          (c) =>
            c.targetKey === overlay.targetKey &&
            c.probeKey === overlay.probeKey &&
            c.arch === overlay.arch &&
            c.memoryMb === figure.memoryMb,
        ) ?? null;
      rows.push({
        ...rowIdentity(model, overlay, figure),
        cell,
        figure,
        ...likeForLike(cell, figure, overlay),
        emulation: emulationNote(model, overlay),
      });
    }
  }
  return {
    runId: model.runId,
    label: model.label,
    baseline: model.baseline.name,
    source: model.baseline.source,
    studyPeriod: `${model.baseline.studyPeriod.from} to ${model.baseline.studyPeriod.to}`,
    rows,
  };
}

function rowIdentity(model: ReportModel, overlay: BaselineOverlay, figure: BaselineFigure) {
  const curve = model.analysis.curves.find(
    (c) => c.targetKey === overlay.targetKey && c.probeKey === overlay.probeKey,
  );
  return {
    target: curve?.target ?? overlay.targetKey,
    baselineRegion: `${overlay.series.regionName} (${overlay.series.region}, quota ${formatNumber(overlay.series.quotaMegabitsPerSecond)})`,
    probeLabel: curve?.probeLabel ?? overlay.series.id,
    arch: overlay.arch,
    memoryMb: figure.memoryMb,
  };
}

const hasNumber = (figure: BaselineFigure) =>
  figure.megabitsPerSecond !== null || figure.secondsPerObject !== null;

/** Our figure measured as the study measured its own, or what keeps it from being so. */
function likeForLike(cell: CellStatistics | null, figure: BaselineFigure, overlay: BaselineOverlay) {
  const differences = [...overlay.methodDifferences];
  const none = { comparedAs: null, deltaPercent: null };
  if (!cell || !hasNumber(figure)) return { ...none, differences };
  const percent = (ours: number, theirs: number) => ((ours - theirs) / theirs) * 100;
  const probe = overlay.series.probe;
  let compared: { comparedAs: string; deltaPercent: number } | null = null;
  if (probe.kind === "s3-get") {
    const seconds = probe.timed === "whole" ? cell.wholeSeconds : cell.transferSeconds;
    if (!seconds)
      differences.push(
        `these records have no ${probe.timed}-download seconds per object (the study timed the ${probe.timed} download)`,
      );
    else if (figure.secondsPerObject !== null)
      compared = {
        comparedAs: `${probe.timed} seconds per object`,
        deltaPercent: percent(seconds.median, figure.secondsPerObject),
      };
    else if (figure.megabitsPerSecond !== null)
      compared = {
        comparedAs: `object bytes over ${probe.timed} seconds`,
        deltaPercent: percent((probe.objectBytes * 8) / seconds.median, figure.megabitsPerSecond * 1e6),
      };
  } else {
    const side = probe.side === "sent" ? cell.sent : cell.received;
    if (!side)
      differences.push(`these records have no iperf3 sum_${probe.side} (the study kept sum_${probe.side})`);
    else if (figure.megabitsPerSecond !== null)
      compared = {
        comparedAs: `${probe.side} (sum_${probe.side})`,
        deltaPercent: percent(side.median, figure.megabitsPerSecond * 1e6),
      };
  }
  if (differences.length > 0 || !compared) return { ...none, differences };
  return { ...compared, differences };
}

/** A lab profile's per-connection caps, which decide what several streams reach beside the quota. */
function emulationNote(model: ReportModel, overlay: BaselineOverlay): string | null {
  const target = model.targets.find((t) => t.key === overlay.targetKey);
  if (!target || !isEmulated(target.platform)) return null;
  const profile = target.details.profile as
    | { flowMegabitsPerSecond?: unknown; s3ConnectionBytesPerSecond?: unknown }
    | undefined;
  if (!profile) return null;
  const flow =
    typeof profile.flowMegabitsPerSecond === "number"
      ? `per-flow cap ${formatNumber(profile.flowMegabitsPerSecond)} Mbit/s`
      : "no per-flow cap";
  if (overlay.series.probe.kind !== "s3-get") return `lab: ${flow}`;
  const s3 =
    typeof profile.s3ConnectionBytesPerSecond === "number"
      ? `S3 ${formatNumber(profile.s3ConnectionBytesPerSecond / 1e6)} MB/s per connection`
      : "no S3 per-connection cap";
  return `lab: ${flow}, ${s3}`;
}

/** "+1.2% (sent (sum_sent))", "no %: -t 8 s (the study: 10 s)", or "–" for a figure without a number. */
function versusText(r: BaselineRow, withBasis: boolean): string {
  if (r.deltaPercent !== null) {
    const delta = `${r.deltaPercent > 0 ? "+" : ""}${formatNumber(r.deltaPercent, 1)}%`;
    return withBasis ? `${delta} (${r.comparedAs})` : delta;
  }
  if (r.cell && hasNumber(r.figure) && r.differences.length > 0)
    return withBasis ? `no %: ${r.differences.join("; ")}` : "no %";
  return "–";
}

export const baselineHeaders = [
  "Target",
  "Study region",
  "Probe",
  "Memory (MB)",
  rateHeaders.sustained,
  rateHeaders.average,
  "Sent / received (Mbit/s)",
  "Per object: transfer / whole (s)",
  "Study (Mbit/s)",
  "Study (s per object)",
  "Ours vs study",
  "The study says",
];

/** Figures right-aligned (memory to "ours vs study"), words left. */
const baselineColumns: TableColumn[] = baselineHeaders.map((header, i) => ({
  header,
  align: i >= 3 && i <= 10 ? "right" : "left",
}));

export function baselineRowCells(r: BaselineRow): string[] {
  const c = r.cell;
  const pair = (a: string, b: string) => (a === "–" && b === "–" ? "–" : `${a} / ${b}`);
  const study =
    r.figure.megabitsPerSecond === null
      ? "–"
      : `${r.figure.approximate ? "~" : ""}${formatNumber(r.figure.megabitsPerSecond)}`;
  return [
    r.emulation ? `${r.target} (${r.emulation})` : r.target,
    r.baselineRegion,
    r.probeLabel,
    formatNumber(r.memoryMb),
    c ? (c.sustained ? `${formatMbps(c.sustained.median)} n=${c.sustained.n}` : "–") : "not measured",
    c?.effective ? `${formatMbps(c.effective.median)} n=${c.effective.n}` : "–",
    pair(formatMbps(c?.sent?.median), formatMbps(c?.received?.median)),
    c?.wholeSeconds
      ? pair(formatNumber(c.transferSeconds?.median, 2), formatNumber(c.wholeSeconds.median, 2))
      : "–",
    study,
    r.figure.secondsPerObject === null ? "–" : formatNumber(r.figure.secondsPerObject, 2),
    versusText(r, true),
    r.figure.statement,
  ];
}

function headerLine(c: BaselineComparison): string {
  return `Run ${c.runId} (${c.label ? c.label.toUpperCase() : "measured"}) beside ${c.baseline}: ${c.source}; measured ${c.studyPeriod}. "~": the study says "about". Lab profiles are matched to the study's region with the same quota. A percentage only where this run measured as the study did (duration, object size, chunk, the figure it kept); "no %" says what differs.`;
}

export function renderBaselineText(c: BaselineComparison): string {
  const table = textTable(baselineColumns, c.rows.map(baselineRowCells));
  if (c.rows.length === 0) table.push("(no curve of this run matches a series of the baseline)");
  return `${[headerLine(c), "", ...table].join("\n")}\n`;
}

export function renderBaselineMarkdownTable(c: BaselineComparison): string[] {
  if (c.rows.length === 0) return ["No curve of this run matches a series of the baseline."];
  return markdownTable(baselineColumns, c.rows.map(baselineRowCells));
}

export function renderBaselineMarkdown(c: BaselineComparison): string {
  return `${["# Beside the published study", "", headerLine(c), "", ...renderBaselineMarkdownTable(c)].join("\n")}\n`;
}

export { headerLine as baselineHeaderLine };

/**
 * The same comparison for a terminal: a block per target, probe and study region, the memory
 * sizes as columns; rows: our sustained rate, our like-for-like figure, the study's, the difference.
 */
export function renderBaselineCompact(c: BaselineComparison, width: number): string[] {
  // figures the study states as words only stay in the md report, where its words are printed
  const numbered = c.rows.filter(
    (r) => r.figure.megabitsPerSecond !== null || r.figure.secondsPerObject !== null,
  );
  const groups = new Map<string, BaselineRow[]>();
  for (const row of numbered) {
    const key = `${row.target}|${row.probeLabel}|${row.baselineRegion}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const body = [...groups.values()].flatMap((rows) => {
    const first = rows[0] as BaselineRow;
    const sizes = [...new Set(rows.map((r) => r.memoryMb))].sort((a, b) => a - b);
    const line = (label: string, text: (r: BaselineRow) => string) => ({
      label,
      cells: sizes.map((s) => {
        const r = rows.find((row) => row.memoryMb === s);
        return r ? text(r) : "";
      }),
    });
    const seconds = rows.some((r) => r.figure.secondsPerObject !== null);
    const block = {
      heading: `${first.target} ${first.probeLabel} beside ${first.baselineRegion}`,
      rows: [
        line("ours sustained (Mbit/s)", (r) =>
          r.cell ? (r.cell.sustained ? formatMbps(r.cell.sustained.median) : "–") : "not measured",
        ),
        seconds
          ? line("ours whole (s/object)", (r) => formatNumber(r.cell?.wholeSeconds?.median, 2))
          : line("ours sent (Mbit/s)", (r) => formatMbps(r.cell?.sent?.median)),
        seconds
          ? line("study (s/object)", (r) => formatNumber(r.figure.secondsPerObject, 2))
          : line("study (Mbit/s)", (r) =>
              r.figure.megabitsPerSecond === null
                ? "–"
                : `${r.figure.approximate ? "~" : ""}${formatNumber(r.figure.megabitsPerSecond)}`,
            ),
        line("ours vs study", (r) => versusText(r, false)),
      ],
    };
    const pivot = renderPivot(
      sizes.map((s) => `${formatNumber(s)} MB`),
      [{ ...block, heading: first.emulation ? `${block.heading} (${first.emulation})` : block.heading }],
      width,
    );
    const differences = [
      ...new Set(rows.filter((r) => versusText(r, false) === "no %").flatMap((r) => r.differences)),
    ];
    if (differences.length === 0) return pivot;
    const note = wrap(
      `  no %: measured differently from the study: ${differences.join("; ")}`,
      width,
      "    ",
    );
    return [...pivot.slice(0, -1), ...note, ""];
  });
  return [
    ...wrap(headerLine(c), width),
    "",
    ...(body.length > 0
      ? body
      : ["(no figure of the baseline with a number matches a cell of this run)", ""]),
    ...wrap(
      "The study's own words per figure: `lambda-netbench compare RUN_DIR --baseline seed-2026 --format md`.",
      width,
    ),
  ];
}
