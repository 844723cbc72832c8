import { compareWithBaseline } from "./baseline-comparison.js";
import type { ReportFormat } from "./report-format.js";
import type { ReportModel } from "./report-model.js";

/** The whole analysis, raw units (bit/s, bytes, seconds, USD), for other tools. */
export function renderJson(model: ReportModel): string {
  return `${JSON.stringify(
    {
      createdAt: model.createdAt,
      toolVersion: model.toolVersion,
      completed: model.completed,
      label: model.label,
      targets: model.targets,
      ...model.analysis,
      baseline: model.baseline,
      baselineComparison: compareWithBaseline(model)?.rows ?? null,
      fleets: model.fleets,
      publishedSeries: model.publishedSeries,
    },
    null,
    2,
  )}\n`;
}

export const jsonFormat: ReportFormat = {
  name: "json",
  description: "analysis as JSON (raw units)",
  async render(model) {
    return [{ fileName: "report.json", content: renderJson(model) }];
  },
};
