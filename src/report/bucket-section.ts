import { type PublishedBucket, publishedBucketsFor } from "../results/bucket-baseline.js";
import type { BucketCell, BucketModel } from "../results/bucket-cells.js";
import type { Spread } from "../results/statistics.js";
import { markdownSection, markdownTable, type TableColumn, textTable } from "./tables.js";
import { wrap, wrapEach } from "./text-layout.js";

/**
 * The token-bucket section of a run's output: per bucket cell (one direction), the fitted model
 * with its spread over the repetitions, and the published figures that measured the same
 * direction at that memory size beside it. Its own section, beside the summary tables. Pure.
 */

const integer = (value: number) => Math.round(value).toLocaleString("en-US");
const mbps = (bitsPerSecond: number) => integer(bitsPerSecond / 1e6);
const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

/** "625 [624-627]" (median [min-max]); the range only from two values on. */
function spread(value: Spread | null, format: (v: number) => string): string {
  if (!value) return "–";
  return value.n >= 2 && value.min !== value.max
    ? `${format(value.median)} [${format(value.min)}-${format(value.max)}]`
    : format(value.median);
}

export function describeRefill(model: BucketModel): string {
  // every repetition never left its burst: the bucket outlasted the transfer, nothing to refill yet
  if (model.n === 0) return "–";
  const refill = model.refill;
  const unsettled = unsettledNote(model);
  if (!refill?.bytesPerSecond)
    return model.burstFound > 0 ? `refill not measured${unsettled}` : "no bucket to refill";
  const rate = `${refill.bound === "at-least" ? "at least " : ""}${spread(refill.bytesPerSecond, megabytes)} MB/s`;
  const delay =
    refill.delaySeconds && Math.round(refill.delaySeconds.median * 100) > 0
      ? `, after ${refill.delaySeconds.median.toFixed(2)} s`
      : "";
  const full = refill.fullAfterSeconds
    ? `; full after ${spread(refill.fullAfterSeconds, (v) => v.toFixed(2))} s idle`
    : "";
  return `refill ${rate} while idle (${refill.shape}${delay})${full}${unsettled}`;
}

/** Says which refill points only bound what came back: their transfer ended still above the sustained rate. */
function unsettledNote(model: BucketModel): string {
  const points = model.refill?.points ?? [];
  const unsettled = points.filter((p) => !p.settled && !p.saturated).length;
  return unsettled === 0
    ? ""
    : `; ${unsettled} of ${points.length} short transfers were still above the sustained rate at their end (left out of the refill: lengthen them, refillTransferSeconds or --refill-time)`;
}

/** "LABEL: sustained ...; peak ...; bucket ...; refill ..." wrapped to `width`, continuing four columns in. */
export function modelLines(label: string, model: BucketModel, width: number): string[] {
  return wrap(`${label}: ${describeModel(model)}`, width, "    ");
}

/** The peak, "at least ..." when no repetition's samples resolved it (a stalled receiver lumped the burst). */
function peakText(model: BucketModel, atLeast: string): string {
  return `${model.peakBound === "at-least" ? atLeast : ""}${spread(model.peakBitsPerSecond, mbps)}`;
}

/** The seconds at the peak, "at most ..." when they follow from a peak the samples only bound. */
function burstSecondsText(model: BucketModel, atMost: string): string {
  return `${model.burstSecondsBound === "at-most" ? atMost : ""}${spread(model.burstSeconds, (v) => v.toFixed(2))}`;
}

/** Says how many repetitions' samples resolved the peak, when some but not all of those with a burst did. */
function unresolvedNote(model: BucketModel): string {
  if (model.peakResolved === 0 || model.peakResolved >= model.burstFound) return "";
  return ` (from the ${model.peakResolved} of ${model.burstFound} repetitions whose samples resolved it; the others' burst lay inside samples too long to resolve it)`;
}

/**
 * Says which repetitions never left their burst: still above the ceiling in force after the
 * fit's break, so what they ran at is burst, not a sustained rate; "" when none did.
 */
export function neverLeftBurstText(model: BucketModel): string {
  const left = model.neverLeftBurst;
  if (!left) return "";
  return `${left.repetitions} of ${left.repetitions + model.n} repetition(s) never left the burst: ${spread(left.rateBitsPerSecond, mbps)} Mbit/s to the end of the long transfer, above the ${mbps(left.ceilingBitsPerSecond)} Mbit/s ceiling in force, so no sustained rate or bucket from them (the bucket outlasted the transfer: lengthen it, transferSeconds)`;
}

/** The model in one sentence: sustained, peak, bucket, refill. */
function describeModel(model: BucketModel): string {
  const neverLeft = neverLeftBurstText(model);
  // it says itself that there is no sustained rate
  if (model.n === 0) return neverLeft;
  const sustained = `sustained ${spread(model.sustainedBitsPerSecond, mbps)} Mbit/s${neverLeft ? ` (${neverLeft})` : ""}`;
  if (model.burstFound === 0) return `${sustained}; no burst in ${model.n} repetition(s)`;
  const partial = model.burstFound < model.n ? ` (burst in ${model.burstFound} of ${model.n})` : "";
  const bounded =
    model.peakBound === "at-least" ? " (the burst lay inside samples too long to resolve its rate)" : "";
  return [
    sustained,
    `peak ${peakText(model, "at least ")} Mbit/s${unresolvedNote(model)}${bounded}`,
    `bucket ${spread(model.bucketBytes, megabytes)} MB above the sustained rate${partial}, ${burstSecondsText(model, "at most ")} s at the peak`,
    describeRefill(model),
  ].join("; ");
}

/** "us-west-2 arm64 1,024 MB upload", " x3 envs" after it for a fleet's cell. */
function cellTitle(cell: BucketCell): string {
  const fleet = cell.environments === 1 ? "" : ` x${cell.environments} envs`;
  return `${cell.target} ${cell.arch} ${cell.memoryMb.toLocaleString("en-US")} MB ${cell.model.direction}${fleet}`;
}

function rangeText(range: { low: number; high: number }): string {
  return range.low === range.high ? integer(range.low) : `${integer(range.low)}-${integer(range.high)}`;
}

/** The published figure with this run's counterpart measured the same way (the first 1 s sample, the sustained rate). */
function publishedLine(published: PublishedBucket, model: BucketModel): string {
  const ours = model.firstSecondBitsPerSecond
    ? `; this run's first second ${mbps(model.firstSecondBitsPerSecond.median)} Mbit/s (published ${rangeText(published.firstSecondMegabitsPerSecond)})`
    : "";
  return `published (${published.source}; ${published.measured}): ${published.statement}${ours}`;
}

/** The table's columns, one list for report.md and the wide text (summary.txt, `--wide`). */
const bucketColumns: ReadonlyArray<TableColumn & { text: (cell: BucketCell) => string }> = [
  { header: "Cell", text: cellTitle },
  { header: "n", align: "right", text: (cell) => String(cell.model.n) },
  {
    header: "Sustained (Mbit/s)",
    align: "right",
    text: (cell) => spread(cell.model.sustainedBitsPerSecond, mbps),
  },
  { header: "Peak (Mbit/s)", align: "right", text: (cell) => peakText(cell.model, ">= ") },
  { header: "Bucket (MB)", align: "right", text: (cell) => spread(cell.model.bucketBytes, megabytes) },
  {
    header: "Burst (s)",
    align: "right",
    text: (cell) => burstSecondsText(cell.model, "<= "),
  },
  { header: "Refill while idle", text: (cell) => describeRefill(cell.model) },
];

const bucketTitle = "Token bucket (each repetition fitted; median [min-max])";

/** What ">=" and "<=" in the table mean, when a cell has them. */
function boundsLegend(cells: readonly BucketCell[]): string[] {
  const bounded = cells.some((c) => c.model.burstFound > 0 && c.model.peakBound === "at-least");
  return bounded
    ? [
        "A peak marked >= is a lower bound, its burst's seconds (<=) an upper one: the burst lay inside samples too long to resolve its rate (a receiver descheduled while it ran); the bucket, bytes above the sustained rate, holds at any sampling.",
      ]
    : [];
}

/** "- CELL: K of N repetitions never left the burst ..." for each cell where some did. */
function neverLeftLines(cells: readonly BucketCell[]): string[] {
  return cells.flatMap((cell) => {
    const text = neverLeftBurstText(cell.model);
    return text ? [`- ${cellTitle(cell)}: ${text}.`] : [];
  });
}

/** "- CELL: published (...): ..." for each published figure that measured a cell's direction and size. */
function publishedLines(cells: readonly BucketCell[]): string[] {
  return cells.flatMap((cell) =>
    publishedBucketsFor(cell.model.direction, cell.memoryMb).map(
      (p) => `- ${cellTitle(cell)}: ${publishedLine(p, cell.model)}`,
    ),
  );
}

const publishedHeading = "Published figures for the same direction and memory size (AWS, not this run):";

/**
 * The section for a terminal, every line within `width`: per cell its model in one wrapped
 * paragraph, then each published figure beside it in its own.
 */
export function bucketCompactLines(cells: readonly BucketCell[], width: number): string[] {
  if (cells.length === 0) return [];
  const lines = ["", ...wrap(bucketTitle, width)];
  for (const cell of cells) {
    lines.push(...modelLines(`- ${cellTitle(cell)} (n=${cell.model.n})`, cell.model, width));
    for (const published of publishedBucketsFor(cell.model.direction, cell.memoryMb))
      lines.push(...wrap(`  ${publishedLine(published, cell.model)}`, width, "    "));
  }
  return lines;
}

/** The section as plain text for files and `--wide`: the table wide on purpose, the published figures wrapped. */
export function bucketTextLines(cells: readonly BucketCell[], width: number): string[] {
  if (cells.length === 0) return [];
  const published = publishedLines(cells);
  return [
    "",
    bucketTitle,
    ...textTable(
      bucketColumns,
      cells.map((cell) => bucketColumns.map((c) => c.text(cell))),
    ),
    ...wrapEach(boundsLegend(cells), width),
    ...wrapEach(neverLeftLines(cells), width),
    ...(published.length > 0 ? ["", ...wrap(publishedHeading, width), ...wrapEach(published, width)] : []),
  ];
}

export function bucketMarkdownLines(cells: readonly BucketCell[]): string[] {
  if (cells.length === 0) return [];
  const published = publishedLines(cells);
  return markdownSection(
    "Token bucket",
    "Each repetition's transfer is fitted as two straight lines of cumulative bytes (the peak while the bucket lasts, then the sustained rate); idle gaps, each followed by a short transfer, show the refill. Median [min-max] over the repetitions; payload rates.",
    markdownTable(
      bucketColumns,
      cells.map((cell) => bucketColumns.map((c) => c.text(cell))),
    ),
    ...boundsLegend(cells),
    ...neverLeftLines(cells),
    ...(published.length > 0 ? [publishedHeading, published] : []),
  );
}
