import type { TopLevelSpec } from "vega-lite";
import type { CellStatistics } from "../../results/analysis.js";
import type { ReportModel } from "../report-model.js";
import { formatMbps } from "../units.js";
import { chartSubtitle, schema, slug } from "./chart-parts.js";
import type { ChartLayout, ChartSpec } from "./chart-spec.js";
import type { ProbeColours } from "./probe-colours.js";

/** The pieces every per-target chart shares: its inputs, sizes, legends, colours and the quota line. */

/** A plot's size and how its legends and small panels are laid out. */
export type PlotSize = { width: number; height: number; timeColumns: number; stackLegends: boolean };

/** Plot sizes of the per-target charts for a desktop window and for a phone. */
export const plotSizes: Record<ChartLayout, PlotSize> = {
  wide: { width: 500, height: 260, timeColumns: 3, stackLegends: false },
  narrow: { width: 285, height: 200, timeColumns: 2, stackLegends: true },
};

/**
 * A title in one line, or on a phone one line for the target and one for what the chart shows
 * (the SVG's width is set from the renderer's estimate of the text, which runs long).
 */
export function titleLines(title: string, size: PlotSize): string | string[] {
  const cut = title.indexOf(": ");
  return size.stackLegends && cut > 0 ? [title.slice(0, cut + 1), title.slice(cut + 2)] : title;
}

/** Legends below the plot; on a phone one above the other, since side by side they widen the chart. */
export function legendConfig(size: PlotSize) {
  return {
    orient: "bottom",
    direction: "vertical",
    labelLimit: 0,
    ...(size.stackLegends ? { layout: { bottom: { direction: "vertical", anchor: "start" } } } : {}),
  };
}

/** What a per-target chart is built from. */
export interface TargetCharts {
  model: ReportModel;
  colours: ProbeColours;
  target: ReportModel["targets"][number];
  /** The target's measuring cells with at least one successful invocation. */
  cells: CellStatistics[];
  size: PlotSize;
}

/** Colour = probe (fixed for the page) and probes side by side within a memory size. */
export function probeEncoding({ colours, cells }: TargetCharts) {
  const scale = colours.scale(cells.map((c) => colours.name(c)));
  return {
    color: { field: "probe", type: "nominal", title: "Probe", scale, legend: { labelLimit: 0 } },
    xOffset: { field: "probe", type: "nominal", scale: { domain: scale.domain, padding: 0.6 } },
  } as const;
}

/** The quota as a dashed grey line with its value written at the left end. */
export function quotaLayers(quotaBitsPerSecond: number | null): object[] {
  if (!quotaBitsPerSecond) return [];
  const quota = quotaBitsPerSecond / 1e6;
  return [
    {
      data: { values: [{}] },
      mark: { type: "rule", strokeDash: [6, 4], color: "#555", strokeWidth: 1.5 },
      encoding: { y: { datum: quota } },
    },
    {
      data: { values: [{}] },
      mark: { type: "text", align: "left", baseline: "bottom", dx: 3, dy: -3, color: "#333", fontSize: 11 },
      encoding: {
        y: { datum: quota },
        x: { value: 0 },
        text: { value: `quota ${formatMbps(quotaBitsPerSecond)} Mbit/s` },
      },
    },
  ];
}

/** A per-target chart: file name `STEM-TARGET`, its title (two lines on a phone) and subtitle, then the body of its spec. */
export function targetChart(
  context: TargetCharts,
  stem: string,
  title: string,
  subtitle: string,
  body: object,
): ChartSpec {
  return {
    name: `${stem}-${slug(context.target.name)}`,
    targetKey: context.target.key,
    role: "target",
    title,
    spec: {
      $schema: schema,
      title: {
        text: titleLines(title, context.size),
        subtitle: chartSubtitle(context.model, subtitle),
        anchor: "start",
      },
      ...body,
    } as unknown as TopLevelSpec,
  };
}
