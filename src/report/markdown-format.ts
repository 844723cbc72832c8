import { isEmulated } from "../plan/platforms.js";
import {
  baselineHeaderLine,
  compareWithBaseline,
  renderBaselineMarkdownTable,
} from "./baseline-comparison.js";
import { bottleneckSentence } from "./bottleneck-lines.js";
import { bucketMarkdownLines } from "./bucket-section.js";
import { fleetMarkdownLines } from "./fleet-section.js";
import { renderLatencyMarkdown } from "./latency-section.js";
import { methodNotes } from "./method-notes.js";
import { renderPublishedSeriesMarkdown } from "./published-series-view.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";
import { renderStreamsPage } from "./streams-section.js";
import { curveSentence, measuringCells, summaryColumns } from "./summary-rows.js";
import { markdownTable } from "./tables.js";
import { formatMbps } from "./units.js";
import { buildVerdicts } from "./verdict.js";

export function renderMarkdown(model: ReportModel): string {
  const out: string[] = [`# ${model.title}${model.label ? ` (${model.label})` : ""}`, ""];
  if (model.label)
    out.push(`> **${model.label.toUpperCase()}**: local lab results, not measured on AWS.`, "");
  const verdicts = buildVerdicts(model);
  if (verdicts.length > 0) out.push("## Verdict", "", ...verdicts.map((v) => `- ${v.text}`), "");
  for (const notice of model.notices ?? []) out.push(`> Note: ${notice}`, "");
  out.push(
    `Run \`${model.runId}\`, started ${model.createdAt}, lambda-netbench ${model.toolVersion}. ` +
      `${model.analysis.recordedInvocations} of ${model.analysis.plannedInvocations} invocations recorded, ${model.analysis.failedInvocations} failed${model.completed ? "" : " (run incomplete: resume it with `lambda-netbench run --resume`)"}.`,
    "",
    "## Targets",
    "",
  );
  for (const target of model.targets) {
    out.push(
      `- **${target.name}** (${target.platform}${model.label && isEmulated(target.platform) ? `, ${model.label}` : ""}): quota ${target.quotaBitsPerSecond ? `${formatMbps(target.quotaBitsPerSecond)} Mbit/s` : "unknown"}`,
    );
  }
  out.push("", `## Summary${model.label ? ` (${model.label})` : ""}`, "");
  out.push(
    ...markdownTable(
      summaryColumns,
      measuringCells(model).map((cell) => summaryColumns.map((c) => c.text(cell))),
    ),
  );
  out.push("", "## What limits each cell", "");
  for (const cell of measuringCells(model)) out.push(`- ${bottleneckSentence(cell)}`);
  out.push("", "## Recommendation", "");
  for (const curve of model.analysis.curves)
    out.push(`- ${curveSentence(curve, model.analysis.moveGigabytes)}`);
  const beside = compareWithBaseline(model);
  if (beside) {
    out.push("", `## Beside the published study (${beside.baseline})`, "", baselineHeaderLine(beside), "");
    out.push(...renderBaselineMarkdownTable(beside));
  }
  out.push(...renderPublishedSeriesMarkdown(model.publishedSeries));
  out.push(...fleetMarkdownLines(model.fleets));
  out.push(...bucketMarkdownLines(model.analysis.buckets));
  const latency = renderLatencyMarkdown(model.analysis.latency);
  if (latency.length > 0) out.push("", ...latency);
  out.push("", "## How these numbers were measured", "");
  for (const note of methodNotes(model)) out.push(`- ${note}`);
  return `${out.join("\n")}\n`;
}

export const markdownFormat: ReportFormat = {
  name: "md",
  description: "Markdown report",
  async render(model) {
    const streams = renderStreamsPage(model.analysis.streams);
    return [
      { fileName: "report.md", content: renderMarkdown(model) },
      ...(streams === null ? [] : [{ fileName: "streams.md", content: streams }]),
    ];
  },
};
