import {
  baselineHeaderLine,
  baselineHeaders,
  baselineRowCells,
  compareWithBaseline,
} from "./baseline-comparison.js";
import { buildCharts } from "./charts/chart-specs.js";
import { renderSvg } from "./charts/render-chart.js";
import { fleetColumns, fleetNote } from "./fleet-section.js";
import { methodNotes } from "./method-notes.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";
import { curveSentence, measuringCells, summaryColumns } from "./summary-rows.js";
import { formatMbps } from "./units.js";

export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

const style = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1600px;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.label{display:inline-block;background:#f2c14e;color:#1b1b1b;font-weight:700;padding:.15rem .5rem;border-radius:4px;margin-left:.4rem;font-size:.8rem;vertical-align:middle}
.banner{background:#fff4d6;border:1px solid #f2c14e;padding:.6rem .8rem;border-radius:6px}
table{border-collapse:collapse;font-size:.8rem;margin:.5rem 0}th,td{padding:.25rem .45rem;border-bottom:1px solid #eee;white-space:nowrap}.table{overflow-x:auto}
th{background:#f6f6f6;text-align:left;position:sticky;top:0}td.r{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(760px,1fr));gap:1rem}
figure{margin:0;border:1px solid #eee;border-radius:6px;padding:.5rem;background:#fff}figure svg{max-width:100%;height:auto}
figcaption{font-size:.8rem;color:#555}.cpu{color:#b00;font-weight:700}.meta{color:#555;font-size:.9rem}
`;

/** One self-contained page: inline CSS and inline SVG charts, no script, no network. */
export async function renderHtml(model: ReportModel): Promise<string> {
  const charts = buildCharts(model);
  const svgs = await Promise.all(charts.map((chart) => renderSvg(chart)));
  const label = model.label ? `<span class="label">${escapeHtml(model.label.toUpperCase())}</span>` : "";
  const a = model.analysis;
  const parts: string[] = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(model.title)}${model.label ? ` (${escapeHtml(model.label)})` : ""}</title>`,
    `<style>${style}</style></head><body>`,
    `<h1>${escapeHtml(model.title)}${label}</h1>`,
    `<p class="meta">Started ${escapeHtml(model.createdAt)} · lambda-netbench ${escapeHtml(model.toolVersion)} · ${a.recordedInvocations} of ${a.plannedInvocations} invocations recorded, ${a.failedInvocations} failed${model.completed ? "" : " · <strong>run incomplete</strong>"}</p>`,
  ];
  if (model.label) {
    parts.push(
      `<p class="banner"><strong>${escapeHtml(model.label.toUpperCase())}</strong>: these numbers come from the local lab, which emulates Lambda's limits${a.unshaped ? " — and without shaping, so they show this machine's loopback" : ""}. They are not AWS measurements.</p>`,
    );
  }
  parts.push("<h2>Targets</h2><ul>");
  for (const target of model.targets) {
    parts.push(
      `<li><strong>${escapeHtml(target.name)}</strong> (${target.platform}${target.platform === "local" && model.label ? `, ${escapeHtml(model.label)}` : ""}): quota ${target.quotaBitsPerSecond ? `${formatMbps(target.quotaBitsPerSecond)} Mbit/s` : "unknown"}</li>`,
    );
  }
  parts.push("</ul>", `<h2>Recommendation${label}</h2><ul>`);
  for (const curve of a.curves) parts.push(`<li>${escapeHtml(curveSentence(curve, a.moveGigabytes))}</li>`);
  parts.push("</ul>", `<h2>Charts${label}</h2>`, '<div class="charts">');
  charts.forEach((chart, index) => {
    parts.push(
      `<figure data-chart="${escapeHtml(chart.name)}">${svgs[index]}<figcaption>${escapeHtml(chart.title)}${model.label ? ` — ${escapeHtml(model.label)}` : ""}</figcaption></figure>`,
    );
  });
  parts.push("</div>", `<h2>Summary${label}</h2>`, '<div class="table"><table><thead><tr>');
  for (const column of summaryColumns) parts.push(`<th>${escapeHtml(column.header)}</th>`);
  parts.push("</tr></thead><tbody>");
  for (const cell of measuringCells(model)) {
    parts.push("<tr>");
    for (const column of summaryColumns) {
      const text = escapeHtml(column.text(cell)).replace("CPU-BOUND", '<span class="cpu">CPU-BOUND</span>');
      parts.push(`<td${column.align === "right" ? ' class="r"' : ""}>${text}</td>`);
    }
    parts.push("</tr>");
  }
  parts.push("</tbody></table></div>");
  const beside = compareWithBaseline(model);
  if (beside) {
    parts.push(
      `<h2>Beside the published study (${escapeHtml(beside.baseline)})${label}</h2>`,
      `<p class="meta">${escapeHtml(baselineHeaderLine(beside))}</p>`,
    );
    if (beside.rows.length === 0) parts.push("<p>No curve of this run matches a series of the baseline.</p>");
    else {
      parts.push('<div class="table"><table><thead><tr>');
      for (const header of baselineHeaders) parts.push(`<th>${escapeHtml(header)}</th>`);
      parts.push("</tr></thead><tbody>");
      for (const row of beside.rows)
        parts.push(
          `<tr>${baselineRowCells(row)
            .map((t, i) => `<td${i >= 3 && i <= 10 ? ' class="r"' : ""}>${escapeHtml(t)}</td>`)
            .join("")}</tr>`,
        );
      parts.push("</tbody></table></div>");
    }
  }
  if (model.fleets.length > 0) {
    parts.push(`<h2>Environments at once${label}</h2>`, '<div class="table"><table><thead><tr>');
    for (const column of fleetColumns) parts.push(`<th>${escapeHtml(column.header)}</th>`);
    parts.push("</tr></thead><tbody>");
    for (const point of model.fleets) {
      const cells = fleetColumns.map(
        (c) => `<td${c.align === "right" ? ' class="r"' : ""}>${escapeHtml(c.text(point))}</td>`,
      );
      parts.push(`<tr>${cells.join("")}</tr>`);
    }
    parts.push("</tbody></table></div>", `<p class="meta">${escapeHtml(fleetNote)}</p>`);
  }
  parts.push("<h2>How these numbers were measured</h2><ul>");
  for (const note of methodNotes(model)) parts.push(`<li>${escapeHtml(note)}</li>`);
  parts.push("</ul></body></html>");
  return `${parts.join("\n")}\n`;
}

export const htmlFormat: ReportFormat = {
  name: "html",
  description: "self-contained HTML page with charts (offline)",
  async render(model) {
    return [{ fileName: "report.html", content: await renderHtml(model) }];
  },
};
