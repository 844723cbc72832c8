import { buildCharts } from "./charts/chart-specs.js";
import { renderSvg, svgToPng } from "./charts/render-chart.js";
import type { ReportFormat } from "./report-format.js";

/** Each chart as its own file: SVG as rendered, PNG rasterised from that SVG. */
function chartFileFormat(extension: "svg" | "png"): ReportFormat {
  return {
    name: extension,
    description: `each chart as ${extension === "svg" ? "an SVG" : "a PNG"} file`,
    async render(model) {
      return Promise.all(
        buildCharts(model).map(async (chart) => {
          const svg = await renderSvg(chart);
          return {
            fileName: `charts/${chart.name}.${extension}`,
            content: extension === "svg" ? svg : svgToPng(svg),
          };
        }),
      );
    },
  };
}

export const svgFormat: ReportFormat = chartFileFormat("svg");
export const pngFormat: ReportFormat = chartFileFormat("png");
