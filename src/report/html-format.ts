import type { CellStatistics } from "../results/analysis.js";
import {
  baselineHeaderLine,
  baselineHeaders,
  baselineRowCells,
  compareWithBaseline,
} from "./baseline-comparison.js";
import type { ChartLayout, ChartSpec } from "./charts/chart-spec.js";
import { buildCharts } from "./charts/chart-specs.js";
import { type ProbeColours, probeColours } from "./charts/probe-colours.js";
import { renderSvg } from "./charts/render-chart.js";
import { fleetColumns, fleetNote } from "./fleet-section.js";
import { cellColumns, escapeHtml, type HtmlColumn, htmlTable, splitSummaryColumns } from "./html-tables.js";
import { latencyVerdicts, renderLatencyMarkdown } from "./latency-section.js";
import { methodNotes } from "./method-notes.js";
import { renderPublishedSeriesHtml } from "./published-series-view.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";
import { curveSentence, measuringCells } from "./summary-rows.js";
import { formatMbps } from "./units.js";
import { buildVerdicts } from "./verdict.js";

export { escapeHtml } from "./html-tables.js";

/** Below this width the page is a phone: charts in their narrow layout, table rows as cards. */
const narrowPx = 760;

const style = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1280px;padding:.8rem 1rem 2rem;color:#1b1b1b;line-height:1.35}
h1{font-size:1.25rem;margin:0}h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1rem;margin:1.2rem 0 .4rem}
.label{display:inline-block;background:#f2c14e;color:#1b1b1b;font-weight:700;padding:.1rem .45rem;border-radius:4px;margin-left:.4rem;font-size:.75rem;vertical-align:middle}
.meta{color:#555;font-size:.85rem;margin:.2rem 0 .5rem}.banner{background:#fff4d6;border:1px solid #f2c14e;padding:.5rem .8rem;border-radius:6px;font-size:.9rem}
.verdict{list-style:none;padding:0;margin:.3rem 0 .5rem;font-size:.9rem;line-height:1.3}.verdict li{margin:.15rem 0;padding-left:1.2rem;text-indent:-1.2rem}
.swatch{display:inline-block;width:.75rem;height:.75rem;border-radius:50%;margin-right:.45rem;vertical-align:baseline;text-indent:0}
figure{margin:0;border:1px solid #eee;border-radius:6px;padding:.4rem;background:#fff;overflow:hidden}figure svg{display:block;max-width:100%;height:auto}
.answer figure{border:0;padding:0}.chart-narrow{display:none}
@media (min-width:${narrowPx + 1}px){
.first{display:flex;flex-direction:column;max-height:100vh}.first .answer{flex:0 1 auto;min-height:0;display:flex;flex-direction:column}
.answer figure.chart-wide{flex:0 1 auto;min-height:300px}.answer figure.chart-wide svg{height:100%;width:auto;max-width:100%}
}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,600px),1fr));gap:.8rem}
table{border-collapse:collapse;font-size:.8rem;margin:.4rem 0}th,td{padding:.25rem .45rem;border-bottom:1px solid #eee;white-space:nowrap;text-align:left}
th{background:#f6f6f6;white-space:normal;vertical-align:bottom}.r{text-align:right;font-variant-numeric:tabular-nums}td.wrap,th.wrap{white-space:normal;min-width:6rem}
.cpu{color:#b00;font-weight:700}details{margin:.4rem 0}summary{cursor:pointer;color:#0b5394}
nav{font-size:.85rem;color:#555}nav a{color:#0b5394;margin-right:.8rem}
@media (max-width:${narrowPx}px){
td.r{text-align:left}body{padding:.5rem .6rem 2rem}.chart-wide{display:none}.chart-narrow{display:block}
table,thead,tbody,tr,th,td{display:block}thead{display:none}tr{border:1px solid #ddd;border-radius:6px;margin:.5rem 0;padding:.3rem .5rem}
td{border:0;padding:.1rem 0;white-space:normal;text-align:left}td::before{content:attr(data-label) ": ";color:#555}td.wrap{min-width:0}
}
`;

/** A chart in one of its layouts; the page's CSS shows the one that fits the screen. */
function figure(chart: ChartSpec, svg: string, layout: ChartLayout): string {
  return `<figure data-chart="${escapeHtml(chart.name)}" data-layout="${layout}" class="chart-${layout}" aria-label="${escapeHtml(chart.title)}">${svg}</figure>`;
}

function swatch(colour: string): string {
  return `<span class="swatch" style="background:${colour}" aria-hidden="true"></span>`;
}

/**
 * One self-contained page (inline CSS and SVG, no script, no network) that leads with the answer:
 * the verdict and the sustained-rate chart fill the first screen; per-target charts, the tables
 * and how it was measured follow.
 */
export async function renderHtml(model: ReportModel): Promise<string> {
  const colours = probeColours(model);
  // every chart twice: laid out for a desktop window and for a phone; CSS shows one of them
  const charts = buildCharts(model, "wide");
  const narrow = buildCharts(model, "narrow");
  const [svgs, narrowSvgs] = await Promise.all([
    Promise.all(charts.map((chart) => renderSvg(chart))),
    Promise.all(narrow.map((chart) => renderSvg(chart))),
  ]);
  const figures = (chart: ChartSpec) => {
    const index = charts.indexOf(chart);
    return [
      figure(chart, svgs[index] as string, "wide"),
      figure(narrow[index] as ChartSpec, narrowSvgs[index] as string, "narrow"),
    ].join("\n");
  };
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const a = model.analysis;
  const parts: string[] = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(model.title)}${model.label ? ` (${escapeHtml(model.label)})` : ""}</title>`,
    `<style>${style}</style></head><body>`,
    // the first screen: the header, the verdict, and the answer chart scaled to the height left
    '<div class="first">',
    `<header><h1>${escapeHtml(model.title)}${label}</h1>`,
    `<p class="meta">Started ${escapeHtml(model.createdAt)} · lambda-netbench ${escapeHtml(model.toolVersion)} · ${a.recordedInvocations} of ${a.plannedInvocations} invocations recorded, ${a.failedInvocations} failed${model.completed ? "" : " · <strong>run incomplete</strong>"}${model.label ? ` · <strong>${escapeHtml(model.label)}: local lab, not AWS</strong>` : ""}</p></header>`,
    '<section class="answer" aria-label="The answer">',
    verdictList(model, colours),
  ];
  // a run of latency cells alone leads with their chart
  const answer =
    charts.find((c) => c.role === "answer") ?? charts.find((c) => c.name.startsWith("latency-vs-memory-"));
  if (answer) parts.push(figures(answer));
  parts.push("</section></div>");
  if (model.label)
    parts.push(
      `<p class="banner"><strong>${escapeHtml(model.label.toUpperCase())}</strong>: these numbers come from the local lab, which emulates Lambda's limits${a.unshaped ? " — and without shaping, so they show this machine's loopback" : ""}. They are not AWS measurements.</p>`,
    );
  parts.push(contents(model));
  parts.push(...targetSections(model, charts, figures));
  parts.push(...summarySections(model, colours));
  parts.push(...baselineSection(model));
  parts.push(...renderPublishedSeriesHtml(model.publishedSeries, model.label));
  parts.push(...fleetSection(model, charts, figures));
  parts.push(...latencySection(model));
  parts.push('<h2 id="method">How these numbers were measured</h2><ul>');
  for (const note of methodNotes(model)) parts.push(`<li>${escapeHtml(note)}</li>`);
  parts.push("</ul></body></html>");
  return `${parts.join("\n")}\n`;
}

/** The verdict, one line per target and probe family, each with its probe's chart colour. */
function verdictList(model: ReportModel, colours: ProbeColours): string {
  const latency = latencyVerdicts(model.analysis.latency).map((line) => {
    const cut = line.indexOf(": ");
    return `<li>${cut > 0 ? `<strong>${escapeHtml(line.slice(0, cut))}</strong>${escapeHtml(line.slice(cut))}` : escapeHtml(line)}</li>`;
  });
  const items = buildVerdicts(model).map((v) => {
    // the line names its target and probe before the first ": ", in bold so the eye finds them
    const cut = v.text.indexOf(": ");
    const text =
      cut > 0
        ? `<strong>${escapeHtml(v.text.slice(0, cut))}</strong>${escapeHtml(v.text.slice(cut))}`
        : escapeHtml(v.text);
    return `<li data-target="${escapeHtml(v.target)}">${swatch(colours.colourOf(colours.name(v)))}${text}</li>`;
  });
  items.push(...latency);
  return items.length > 0
    ? `<ul class="verdict">${items.join("")}</ul>`
    : "<p>No successful measurement.</p>";
}

function contents(model: ReportModel): string {
  const links = [
    ["targets", "Charts per target"],
    ["summary", "Tables"],
    ...(model.baseline ? [["baseline", "Beside the published study"]] : []),
    ...(model.publishedSeries.length > 0 ? [["published-series", "Beside a published series"]] : []),
    ...(model.fleets.length > 0 ? [["fleets", "Environments at once"]] : []),
    ...(model.analysis.latency.cells.length > 0 ? [["latency", "S3 GET latency"]] : []),
    ["method", "How it was measured"],
  ];
  return `<nav aria-label="Contents">${links.map(([id, text]) => `<a href="#${id}">${text}</a>`).join("")}</nav>`;
}

function quotaText(quotaBitsPerSecond: number | null): string {
  return quotaBitsPerSecond ? `quota ${formatMbps(quotaBitsPerSecond)} Mbit/s` : "quota unknown";
}

/** Per target: its recommendation and its four charts (rates, time series, CPU, cost). */
function targetSections(
  model: ReportModel,
  charts: ChartSpec[],
  figures: (c: ChartSpec) => string,
): string[] {
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const parts = [`<h2 id="targets">Charts per target${label}</h2>`];
  for (const target of model.targets) {
    const own = charts.filter((c) => c.role === "target" && c.targetKey === target.key);
    parts.push(
      `<h3>${escapeHtml(target.name)} <span class="meta">(${target.platform}, ${quotaText(target.quotaBitsPerSecond)})</span></h3>`,
    );
    const curves = model.analysis.curves.filter((c) => c.targetKey === target.key);
    if (curves.length > 0) {
      parts.push('<ul class="meta">');
      for (const curve of curves)
        parts.push(`<li>${escapeHtml(curveSentence(curve, model.analysis.moveGigabytes))}</li>`);
      parts.push("</ul>");
    }
    parts.push('<div class="charts">', ...own.map(figures), "</div>");
  }
  return parts;
}

/** Per target: the headline table, and the remaining columns behind a click. */
function summarySections(model: ReportModel, colours: ProbeColours): string[] {
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const parts = [`<h2 id="summary">Tables${label}</h2>`];
  const all = measuringCells(model);
  const multiArch = new Set(all.map((c) => c.arch)).size > 1;
  const columns = splitSummaryColumns();
  for (const target of model.targets) {
    const cells = all.filter((c) => c.targetKey === target.key);
    if (cells.length === 0) continue;
    const probe: HtmlColumn = {
      header: "Probe",
      align: "left",
      html: (row) => {
        const cell = cells[row] as CellStatistics;
        const name = colours.name(cell);
        return `${swatch(colours.colourOf(name))}<span title="${escapeHtml(cell.probeLabel)}">${escapeHtml(name)}</span>`;
      },
    };
    const arch: HtmlColumn[] = multiArch
      ? [{ header: "Arch", align: "left", html: (row) => escapeHtml((cells[row] as CellStatistics).arch) }]
      : [];
    parts.push(
      `<h3>${escapeHtml(target.name)} <span class="meta">(${quotaText(target.quotaBitsPerSecond)})</span></h3>`,
      htmlTable([probe, ...arch, ...cellColumns(columns.headline, cells)], cells.length, "headline"),
      `<details><summary>${escapeHtml(target.name)}: sent/received, seconds per object, retransmits, CPU and cost</summary>`,
      htmlTable([probe, ...arch, ...cellColumns(columns.detail, cells)], cells.length, "detail"),
      "</details>",
    );
  }
  return parts;
}

/** The run beside the published study, in a table that fits: the study's words wrap. */
function baselineSection(model: ReportModel): string[] {
  const beside = compareWithBaseline(model);
  if (!beside) return [];
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const parts = [
    `<h2 id="baseline">Beside the published study (${escapeHtml(beside.baseline)})${label}</h2>`,
    `<p class="meta">${escapeHtml(baselineHeaderLine(beside))}</p>`,
  ];
  if (beside.rows.length === 0)
    return [...parts, "<p>No curve of this run matches a series of the baseline.</p>"];
  const rows = beside.rows.map(baselineRowCells);
  const columns: HtmlColumn[] = baselineHeaders.map((header, i) => ({
    header,
    // the study's own words are long: they wrap, the numbers do not
    align: i >= 3 && i <= 9 ? "right" : "wrap",
    html: (row) => escapeHtml(rows[row]?.[i] ?? ""),
  }));
  parts.push(
    `<details><summary>${rows.length} figures of the study beside this run</summary>`,
    htmlTable(columns, rows.length, "baseline"),
    "</details>",
  );
  return parts;
}

function fleetSection(model: ReportModel, charts: ChartSpec[], figures: (c: ChartSpec) => string): string[] {
  if (model.fleets.length === 0) return [];
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const columns: HtmlColumn[] = fleetColumns.map((c) => ({
    header: c.header,
    align: c.align,
    html: (row) => escapeHtml(c.text(model.fleets[row] as (typeof model.fleets)[number])),
  }));
  const fleetCharts = charts.filter((c) => c.role === "fleet");
  return [
    `<h2 id="fleets">Environments at once${label}</h2>`,
    '<div class="charts">',
    ...fleetCharts.map(figures),
    "</div>",
    htmlTable(columns, model.fleets.length, "fleet"),
    `<p class="meta">${escapeHtml(fleetNote)}</p>`,
  ];
}

/** The latency tables: report.md's section (plain text and pipe tables) turned into HTML. */
function latencySection(model: ReportModel): string[] {
  const lines = renderLatencyMarkdown(model.analysis.latency);
  if (lines.length === 0) return [];
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const parts = [`<h2 id="latency">S3 GET latency${label}</h2>`];
  let table: string[][] = [];
  const flush = () => {
    if (table.length === 0) return;
    const [head, , ...body] = table;
    const columns: HtmlColumn[] = (head ?? []).map((header, i) => ({
      header,
      align: i <= 3 ? "left" : "right",
      html: (row) => escapeHtml(body[row]?.[i] ?? ""),
    }));
    parts.push(htmlTable(columns, body.length, "latency"));
    table = [];
  };
  for (const line of lines.slice(1)) {
    if (line.startsWith("|")) {
      table.push(
        line
          .slice(1, -1)
          .split("|")
          .map((cell) => cell.trim()),
      );
      continue;
    }
    flush();
    if (line.startsWith("- ")) parts.push(`<p>${escapeHtml(line.slice(2))}</p>`);
    else if (line.trim() !== "") parts.push(`<p class="meta">${escapeHtml(line.replaceAll("`", ""))}</p>`);
  }
  flush();
  return parts;
}

export const htmlFormat: ReportFormat = {
  name: "html",
  description: "self-contained HTML page that leads with the verdict and one chart (offline)",
  async render(model) {
    return [{ fileName: "report.html", content: await renderHtml(model) }];
  },
};
