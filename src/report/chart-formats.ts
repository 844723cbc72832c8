import { buildCharts } from "./charts/chart-specs.js";
import { renderSvg, svgToPng } from "./charts/render-chart.js";
import type { ReportFormat } from "./report-format.js";

export const svgFormat: ReportFormat = {
  name: "svg",
  description: "each chart as an SVG file",
  async render(model) {
    const charts = buildCharts(model);
    return Promise.all(
      charts.map(async (chart) => ({
        fileName: `charts/${chart.name}.svg`,
        content: await renderSvg(chart),
      })),
    );
  },
};

export const pngFormat: ReportFormat = {
  name: "png",
  description: "each chart as a PNG file",
  async render(model) {
    const charts = buildCharts(model);
    return Promise.all(
      charts.map(async (chart) => ({
        fileName: `charts/${chart.name}.png`,
        content: svgToPng(await renderSvg(chart)),
      })),
    );
  },
};
