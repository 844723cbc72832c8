import { csvFormat } from "./csv-format.js";
import { jsonFormat } from "./json-format.js";
import { markdownFormat } from "./markdown-format.js";
import type { ReportFormat } from "./report-format.js";
import { terminalFormat } from "./terminal-format.js";

/**
 * A format whose module loads when it renders: the chart formats pull in vega and resvg, which
 * took seconds to load in every command that only lists the formats (`--help`) or prints text.
 * The description is repeated here for the listing; a test checks it against the module's own.
 */
function lazyFormat(name: string, description: string, load: () => Promise<ReportFormat>): ReportFormat {
  return {
    name,
    description,
    async render(model) {
      return (await load()).render(model);
    },
  };
}

export const htmlFormat = lazyFormat(
  "html",
  "self-contained HTML page that leads with the verdict and one chart (offline)",
  async () => (await import("./html-format.js")).htmlFormat,
);
export const pngFormat = lazyFormat(
  "png",
  "each chart as a PNG file",
  async () => (await import("./chart-formats.js")).pngFormat,
);
export const svgFormat = lazyFormat(
  "svg",
  "each chart as an SVG file",
  async () => (await import("./chart-formats.js")).svgFormat,
);

/** Every output format by name (`report --format NAME`). */
export const reportFormats: Record<string, ReportFormat> = Object.fromEntries(
  [htmlFormat, markdownFormat, csvFormat, jsonFormat, pngFormat, svgFormat, terminalFormat].map((f) => [
    f.name,
    f,
  ]),
);

export const reportFormatNames = Object.keys(reportFormats);

/** The files a run's report is: what `run` writes when it completes and `report RUN_DIR` writes again. */
export const runReportFormats = [htmlFormat, markdownFormat, csvFormat, jsonFormat].map((f) => f.name);
