import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { buildHistory, historyChart, renderHistoryText } from "../../report/history.js";
import { loadHistoryRuns } from "../../report/history-load.js";

const historyFormats = ["text", "svg", "png", "html"] as const;

/**
 * `report --history DIR... [--format text|svg|png|html] [--out DIR]`: the sustained and burst
 * rates per memory size over the runs (docs/aws.md, Scheduled studies). Text to stdout; charts
 * as files, one per probe.
 */
export async function historyCommand(
  dirs: string[],
  options: { format?: string[]; out?: string },
): Promise<number> {
  const formats = (options.format ?? ["text"]).flatMap((f) => f.split(",")).filter((f) => f !== "");
  const unknown = formats.filter((f) => !(historyFormats as readonly string[]).includes(f));
  if (unknown.length > 0) {
    console.error(
      `lambda-netbench report --history: --format: unknown ${unknown.join(", ")} (allowed: ${historyFormats.join(", ")})`,
    );
    return 2;
  }
  const series = buildHistory(await loadHistoryRuns(dirs));
  if (formats.includes("text")) process.stdout.write(renderHistoryText(series));
  const files = formats.filter((f) => f !== "text");
  if (files.length === 0) return 0;
  const { renderSvg, svgToPng } = await import("../../report/charts/render-chart.js");
  const outDir = resolve(options.out ?? ".");
  await mkdir(outDir, { recursive: true });
  for (const entry of series) {
    const chart = historyChart(entry);
    const svg = await renderSvg(chart);
    for (const format of files) {
      const path = join(outDir, `${chart.name}.${format}`);
      if (format === "svg") await writeFile(path, svg);
      else if (format === "png") await writeFile(path, svgToPng(svg));
      else
        await writeFile(
          path,
          `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(chart.title)}</title></head><body>\n<h1>${escapeHtml(chart.title)}</h1>\n${svg}\n</body></html>\n`,
        );
      console.log(path);
    }
  }
  return 0;
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
