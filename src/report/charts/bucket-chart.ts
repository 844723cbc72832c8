import type { TopLevelSpec } from "vega-lite";
import type { BucketCell } from "../../results/bucket-cells.js";
import type { ReportModel } from "../report-model.js";
import type { ChartSpec } from "./chart-spec.js";

/**
 * Per bucket cell: the rate of its median repetition's long transfer at the probe's fine
 * sampling (10 ms by default) with the fitted model drawn on it: the peak from the transfer's
 * start to the break, the sustained rate after it. Pure. The example is a repetition whose samples
 * resolved the peak when any did.
 */
export function bucketCharts(model: ReportModel): ChartSpec[] {
  return model.analysis.buckets.flatMap((cell) => {
    const chart = bucketChart(cell, model.label);
    return chart ? [chart] : [];
  });
}

function bucketChart(cell: BucketCell, label: string | null): ChartSpec | null {
  const example = cell.example;
  if (!example || example.samples.bytes.length === 0) return null;
  const { samples, fit } = example;
  const measured = samples.bytes.map((bytes, i) => ({
    seconds: samples.startSeconds[i] ?? 0,
    mbps: (bytes * 8) / (samples.durationSeconds[i] || 1) / 1e6,
  }));
  const last = samples.bytes.length - 1;
  const endSeconds = (samples.startSeconds[last] ?? 0) + (samples.durationSeconds[last] ?? 0);
  const sustained = example.sustainedBitsPerSecond / 1e6;
  // a burst the samples only bound (it lay inside a stalled sample) has no segments to draw
  const burst = cell.model.burstFound > 0 && example.peakResolved && fit.excessBytes > 0;
  const unresolved =
    cell.model.burstFound > 0 && !burst
      ? ["the burst lay inside samples too long to resolve it: only the sustained rate is drawn"]
      : [];
  const peak = fit.peakBitsPerSecond / 1e6;
  const model = burst
    ? [
        { seconds: fit.startSeconds, mbps: peak },
        { seconds: fit.breakSeconds, mbps: peak },
        { seconds: fit.breakSeconds, mbps: sustained },
        { seconds: endSeconds, mbps: sustained },
      ]
    : [
        { seconds: 0, mbps: sustained },
        { seconds: endSeconds, mbps: sustained },
      ];
  const title = `${cell.target} ${cell.memoryMb} MB ${cell.model.direction}: token bucket`;
  const slug = `${cell.target}-${cell.memoryMb}-${cell.arch}-${cell.model.direction}`
    .replace(/[^A-Za-z0-9]+/g, "-")
    .toLowerCase();
  const x = {
    field: "seconds",
    type: "quantitative",
    title: "Time since start of the transfer (s)",
  } as const;
  return {
    name: `bucket-${slug}`,
    title,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: [
          `${label ? `${label.toUpperCase()} results (local lab) — ` : ""}grey: ${Math.round(samples.intervalSeconds * 1000)} ms samples of the median repetition; red: the fit (peak, then sustained)`,
          ...unresolved,
        ],
      },
      width: 560,
      height: 300,
      layer: [
        {
          data: { values: measured },
          mark: { type: "line", interpolate: "step-after", color: "#888", strokeWidth: 1 },
          encoding: { x, y: { field: "mbps", type: "quantitative", title: "Throughput (Mbit/s, payload)" } },
        },
        {
          data: { values: model },
          mark: { type: "line", color: "#b00", strokeWidth: 2.5 },
          encoding: {
            x,
            y: { field: "mbps", type: "quantitative" },
            tooltip: [
              { field: "seconds", title: "s", format: ".3f" },
              { field: "mbps", title: "Mbit/s", format: ",.0f" },
            ],
          },
        },
      ],
    } as TopLevelSpec,
  };
}
