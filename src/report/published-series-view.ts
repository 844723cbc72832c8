import type { PublishedSeriesBeside } from "../results/published-series.js";
import type { SeriesModel } from "../results/series-fit.js";
import type { Spread } from "../results/statistics.js";
import { escapeHtml, type HtmlColumn, htmlTable } from "./html-tables.js";
import { markdownSection, markdownTable, type TableColumn } from "./tables.js";
import { wrap } from "./text-layout.js";
import { formatMbps, formatNumber } from "./units.js";

/**
 * A published Lambda iperf3 series (results/published-series.ts) beside the cells of this run
 * that measured the same thing: one iperf3 direction, the same streams, the same sampling
 * interval and memory size. Both are fitted by `fit`'s model, so the figures are read alike: the
 * first sample (what a 1 s sampler shows as "the burst"), the sustained rate and the bucket above
 * it, each with its n. Nothing is shown for a cell measured another way. Pure.
 */

const heading = "Beside a published Lambda series (measured by others, in AWS; both fitted as `fit` does)";

const spreadText = (s: Spread | null, format: (v: number) => string) =>
  s === null
    ? "–"
    : s.n >= 2 && s.min !== s.max
      ? `${format(s.median)} [${format(s.min)}-${format(s.max)}]`
      : format(s.median);
const mbps = (bitsPerSecond: number) => formatMbps(bitsPerSecond);
const megabytes = (bytes: number) => formatNumber(bytes / 1e6, 1);
/** "1 s", "250 ms": the sampling interval to the millisecond (a measured 0.9999 s is the 1 s sampler). */
function intervalText(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${formatNumber(ms)} ms`;
}

function figures(model: SeriesModel) {
  return {
    first: spreadText(model.firstSampleBitsPerSecond, mbps),
    sustained: spreadText(model.sustainedBitsPerSecond, mbps),
    bucket: model.burstFound === 0 ? "none" : spreadText(model.bucketBytes, megabytes),
  };
}

/** Ours ran without enough idle before each test for the bucket to be full, as a fresh function's was. */
function restNote(row: PublishedSeriesBeside): string | null {
  if (row.oursRestSeconds >= row.refillSeconds) return null;
  const rest =
    row.oursRestSeconds === 0
      ? "ours ran each test without a rest before it"
      : `ours rested ${formatNumber(row.oursRestSeconds, 1)} s before each test`;
  return `${rest}, and the published bucket refills in ${formatNumber(row.refillSeconds, 1)} s: a repetition may have started with its bucket not yet full, as the published fresh function's was (restSeconds in the plan; \`fit --save-profile\` writes it)`;
}

const oursName = (row: PublishedSeriesBeside) =>
  `${row.target} ${row.arch} ${row.probeLabel} at ${formatNumber(row.memoryMb)} MB`;

/** The console's lines; none when no cell measured what a published series measured. */
export function renderPublishedSeriesText(rows: readonly PublishedSeriesBeside[], width: number): string[] {
  if (rows.length === 0) return [];
  const lines = ["", ...wrap(heading, width)];
  let previousCell = "";
  for (const row of rows) {
    const interval = intervalText(row.published.model.intervalSeconds.median);
    // our cell once, then each published series beside it
    if (row.cellId !== previousCell) {
      const ours = figures(row.ours);
      lines.push(
        ...wrap(
          `  ${oursName(row)} (n = ${row.ours.n}): first ${interval} ${ours.first} Mbit/s, sustained ${ours.sustained} Mbit/s, bucket ${ours.bucket} MB`,
          width,
          "      ",
        ),
      );
    }
    previousCell = row.cellId;
    const theirs = figures(row.published.model);
    lines.push(
      ...wrap(
        `    ${row.published.id} (n = 1 transfer, ${row.published.intervals} intervals): first ${interval} ${theirs.first} Mbit/s, sustained ${theirs.sustained} Mbit/s, bucket ${theirs.bucket} MB`,
        width,
        "      ",
      ),
      ...wrap(`    source: ${row.published.source}; ${row.published.measured}`, width, "      "),
    );
    const note = restNote(row);
    if (note) lines.push(...wrap(`    note: ${note}`, width, "      "));
  }
  return lines;
}

const columns: TableColumn[] = [
  { header: "Series" },
  { header: "Memory (MB)", align: "right" },
  { header: "n (transfers)", align: "right" },
  { header: "First sample (Mbit/s)", align: "right" },
  { header: "Sustained (Mbit/s)", align: "right" },
  { header: "Bucket above sustained (MB)", align: "right" },
  { header: "Source, how measured" },
];

/** Two rows per pair: ours, then the published series with its source. */
function tableRows(rows: readonly PublishedSeriesBeside[]): string[][] {
  return rows.flatMap((row) => {
    const ours = figures(row.ours);
    const theirs = figures(row.published.model);
    const note = restNote(row);
    return [
      [
        `ours: ${oursName(row)}`,
        formatNumber(row.memoryMb),
        String(row.ours.n),
        ours.first,
        ours.sustained,
        ours.bucket,
        note ? `this run; ${note}` : "this run",
      ],
      [
        `published: ${row.published.id}`,
        formatNumber(row.memoryMb),
        `1 (${row.published.intervals} intervals)`,
        theirs.first,
        theirs.sustained,
        theirs.bucket,
        `${row.published.source}; ${row.published.measured}`,
      ],
    ];
  });
}

/** report.md's section; none without a match. */
export function renderPublishedSeriesMarkdown(rows: readonly PublishedSeriesBeside[]): string[] {
  if (rows.length === 0) return [];
  return markdownSection(
    "Beside a published Lambda series",
    `${heading}.`,
    markdownTable(columns, tableRows(rows)),
  );
}

/** The HTML page's section; none without a match. */
export function renderPublishedSeriesHtml(
  rows: readonly PublishedSeriesBeside[],
  label: string | null,
): string[] {
  if (rows.length === 0) return [];
  const cells = tableRows(rows);
  const htmlColumns: HtmlColumn[] = columns.map((column, i) => ({
    header: column.header,
    align: column.align === "right" ? "right" : "wrap",
    html: (row) => escapeHtml(cells[row]?.[i] ?? ""),
  }));
  const tag = label ? `<span class="label">${escapeHtml(label.toUpperCase())}</span>` : "";
  return [
    `<h2 id="published-series">Beside a published Lambda series${tag}</h2>`,
    `<p class="meta">${escapeHtml(heading)}.</p>`,
    htmlTable(htmlColumns, cells.length, "published-series"),
  ];
}
