import { pngFormat, svgFormat } from "./chart-formats.js";
import { csvFormat } from "./csv-format.js";
import { htmlFormat } from "./html-format.js";
import { jsonFormat } from "./json-format.js";
import { markdownFormat } from "./markdown-format.js";
import type { ReportFormat } from "./report-format.js";
import { terminalFormat } from "./terminal-format.js";

/** Every output format by name (`report --format NAME`). */
export const reportFormats: Record<string, ReportFormat> = Object.fromEntries(
  [htmlFormat, markdownFormat, csvFormat, jsonFormat, pngFormat, svgFormat, terminalFormat].map((f) => [
    f.name,
    f,
  ]),
);

export const reportFormatNames = Object.keys(reportFormats);
