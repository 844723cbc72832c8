import type { TopLevelSpec } from "vega-lite";
import { movesData } from "../../probes/registry.js";
import type { CellStatistics } from "../../results/analysis.js";
import { burstSecondsText } from "../burst-text.js";
import type { ReportModel } from "../report-model.js";
import { formatMbps } from "../units.js";
import {
  chartSubtitle,
  memoryAxis,
  memorySizes,
  minMaxRule,
  rateAxis,
  schema,
  spreadMbps,
} from "./chart-parts.js";
import type { ChartLayout, ChartSpec } from "./chart-spec.js";
import { type ProbeSeriesName, probeColours } from "./probe-colours.js";

/** The two marks of the answer chart, named as the legend shows them. */
export const sustainedMark = "sustained (median)";
export const burstMark = "burst (median)";

/**
 * The chart the report leads with: per target (one panel each, same scale), the median sustained
 * rate of every probe at each memory size measured (a categorical axis: only those sizes, no line
 * suggesting a curve between them), its min-max bar, the burst as a second mark, and the quota as a
 * labelled dashed line. Probes sit side by side within a size, so no mark hides another. Pure.
 */
export function answerChart(model: ReportModel, layout: ChartLayout = "wide"): ChartSpec | null {
  const colours = probeColours(model);
  const cells = model.analysis.cells.filter((c) => movesData(c.probe) && c.effective !== null);
  if (cells.length === 0) return null;
  const targets = model.targets.filter((t) => cells.some((c) => c.targetKey === t.key));
  const facetName = (targetKey: string) => {
    const target = targets.find((t) => t.key === targetKey);
    return target ? target.name : targetKey;
  };
  const values: object[] = cells.flatMap((cell) => cellRows(cell, facetName(cell.targetKey), colours.name));
  for (const target of targets)
    if (target.quotaBitsPerSecond)
      values.push({
        kind: "quota",
        target: target.name,
        rateMbps: target.quotaBitsPerSecond / 1e6,
        text: `quota ${formatMbps(target.quotaBitsPerSecond)} Mbit/s`,
        lines: `quota\n${formatMbps(target.quotaBitsPerSecond)} Mbit/s`,
      });
  const probes = colours.scale(cells.map((c) => colours.name(c)));
  const highest = Math.max(
    ...values.map((v) => {
      const row = v as { maxMbps?: number; rateMbps?: number };
      return row.maxMbps ?? row.rateMbps ?? 0;
    }),
  );
  const columns = layout === "narrow" ? 1 : Math.min(targets.length, 3);
  const rows = Math.ceil(targets.length / columns);
  // on a desktop the quota's label stands at the line's right end, outside the plot where no mark
  // can sit under it; a phone has no room beside its panel, so the label goes inside, at the left
  // end. The SVG's size follows the renderer's estimate of text widths (about 9 px a character at
  // 11 px): 1,248 px less the y axis, the legends and a label beside each panel.
  const labelOutside = layout === "wide";
  const width =
    layout === "narrow" ? 290 : Math.min(Math.floor((1248 - 60 - 200 - 16 - columns * 110) / columns), 760);
  const height = layout === "narrow" ? 220 : rows > 1 ? 190 : 280;
  const sizes = memorySizes(cells);
  // a phone's panel has room for about four memory labels side by side
  const x = memoryAxis(sizes, layout === "narrow" && sizes.length > 4 ? -45 : 0);
  const xOffset = { field: "probe", type: "nominal", scale: { domain: probes.domain, padding: 0.6 } };
  const color = {
    field: "probe",
    type: "nominal",
    title: "Probe",
    scale: probes,
    // right of the panels on a desktop, where height is short (the verdict sits above); above on a phone
    legend: {
      orient: layout === "narrow" ? "top" : "right",
      direction: "vertical",
      labelLimit: layout === "narrow" ? 260 : 0,
    },
  };
  const quota = "datum.kind === 'quota'";
  const title = "Sustained rate by memory size";
  return {
    name: "sustained-by-memory",
    title,
    role: "answer",
    spec: {
      $schema: schema,
      title: {
        text: title,
        subtitle: chartSubtitle(
          model,
          "one panel per target, same scale; bar: min–max of the sustained rate",
        ),
        anchor: "start",
      },
      data: { values },
      facet: {
        field: "target",
        type: "nominal",
        sort: targets.map((t) => t.name),
        title: null,
        header: { labelFontSize: 13, labelFontWeight: "bold", labelAnchor: "start" },
      },
      columns,
      // each panel's bounds hold its quota label already
      spacing: 16,
      spec: {
        width,
        height,
        layer: [
          {
            transform: [{ filter: quota }],
            mark: { type: "rule", strokeDash: [6, 4], color: "#555", strokeWidth: 1.5 },
            encoding: { y: { field: "rateMbps", type: "quantitative" } },
          },
          {
            transform: [{ filter: quota }],
            mark: {
              type: "text",
              align: "left",
              baseline: labelOutside ? "middle" : "bottom",
              dx: labelOutside ? 4 : 3,
              dy: labelOutside ? 0 : -3,
              lineBreak: "\n",
              color: "#333",
              fontSize: 11,
            },
            encoding: {
              y: { field: "rateMbps", type: "quantitative" },
              x: { value: labelOutside ? width : 0 },
              text: { field: labelOutside ? "lines" : "text" },
            },
          },
          minMaxRule("datum.kind === 'sustained'", { x, xOffset, color }),
          {
            transform: [{ filter: "datum.kind === 'sustained' || datum.kind === 'burst'" }],
            mark: { type: "point", filled: true, size: layout === "narrow" ? 45 : 70, opacity: 1 },
            encoding: {
              x,
              xOffset,
              y: rateAxis(highest),
              color,
              shape: {
                field: "mark",
                type: "nominal",
                title: "Mark",
                scale: { domain: [sustainedMark, burstMark], range: ["circle", "triangle-up"] },
                legend: {
                  // under the probe legend on a desktop; below the plot on a phone, or it widens the chart
                  orient: layout === "narrow" ? "bottom" : "right",
                  direction: "vertical",
                  labelLimit: 0,
                  symbolFillColor: "#555",
                  symbolStrokeColor: "#555",
                },
              },
            },
          },
          {
            transform: [{ filter: "datum.kind === 'missing'" }],
            mark: { type: "text", angle: -90, align: "left", baseline: "middle", dx: 4, fontSize: 10 },
            encoding: { x, xOffset, y: { datum: 0 }, text: { field: "text" }, color },
          },
        ],
      },
      config: {
        legend: { labelFontSize: 11, titleFontSize: 11 },
        axis: { labelFontSize: 11 },
      },
    } as unknown as TopLevelSpec,
  };
}

/** A cell's marks: its sustained rate (or why there is none) and its burst when one was detected. */
function cellRows(cell: CellStatistics, target: string, name: ProbeSeriesName) {
  const base = { target, memoryMb: cell.memoryMb, probe: name(cell) };
  const rows: object[] = [];
  if (cell.sustained)
    rows.push({
      ...base,
      kind: "sustained",
      mark: sustainedMark,
      ...spreadMbps(cell.sustained),
      n: cell.sustained.n,
    });
  else rows.push({ ...base, kind: "missing", text: "no sustained rate" });
  if (cell.burst)
    rows.push({
      ...base,
      kind: "burst",
      mark: burstMark,
      rateMbps: cell.burst.median / 1e6,
      seconds:
        cell.burstSeconds && cell.burstBounds
          ? burstSecondsText(
              cell.burstSeconds.median,
              cell.burstBounds.seconds,
              cell.burstBounds.intervalSeconds,
              1,
            )
          : "–",
    });
  return rows;
}
