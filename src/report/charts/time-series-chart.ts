import type { ChartSpec } from "./chart-spec.js";
import { type TargetCharts, targetChart } from "./target-chart-parts.js";

/**
 * One median invocation per memory size (one small panel each, the probe's colour), per-interval
 * rates over time with the detected burst shaded: what the burst and the sustained rate look like.
 */
export function timeSeries(context: TargetCharts): ChartSpec | null {
  const { model, target } = context;
  const picks = model.series
    .filter((s) => s.targetKey === target.key && s.points.length > 0)
    .sort((a, b) => a.memoryMb - b.memoryMb);
  const first = picks[0];
  if (!first) return null;
  // the series are the target's first curve with points: it names the probe's colour
  const curve = model.analysis.curves.find((c) => c.targetKey === target.key && c.points.length > 0);
  const probe = context.colours.name(curve ?? { probeKey: "", probeLabel: first.probeLabel, arch: "" });
  const colour = context.colours.colourOf(probe);
  const panel = (memoryMb: number) => `${memoryMb.toLocaleString("en-US")} MB`;
  const values = picks.flatMap((pick) => [
    ...pick.points.map((p) => ({
      kind: "rate",
      memory: panel(pick.memoryMb),
      seconds: p.startSeconds,
      rateMbps: p.bitsPerSecond / 1e6,
    })),
    ...(pick.burstSeconds === null
      ? []
      : [{ kind: "burst", memory: panel(pick.memoryMb), from: 0, to: pick.burstSeconds }]),
  ]);
  const title = `${target.name}: rate over time, ${probe}`;
  const columns = Math.min(picks.length, context.size.timeColumns);
  // small panels of a phone share one short axis title each
  const timeTitle = columns > 2 ? "Time since the start (s)" : "Time (s)";
  return targetChart(
    context,
    "time-series",
    title,
    "one median invocation per memory size; shaded: the burst detected in it",
    {
      data: { values },
      facet: {
        field: "memory",
        type: "ordinal",
        sort: picks.map((p) => panel(p.memoryMb)),
        title: null,
        header: { labelFontWeight: "bold", labelAnchor: "start" },
      },
      columns,
      spec: {
        width: Math.floor((context.size.width - 20) / columns) - 20,
        height: 110,
        layer: [
          {
            transform: [{ filter: "datum.kind === 'burst'" }],
            mark: { type: "rect", color: "#f2c14e", opacity: 0.35 },
            encoding: {
              x: { field: "from", type: "quantitative" },
              x2: { field: "to" },
              y: { datum: 0 },
              y2: { value: 0 },
            },
          },
          {
            transform: [{ filter: "datum.kind === 'rate'" }],
            mark: { type: "line", interpolate: "step-after", color: colour, strokeWidth: 1.5 },
            encoding: {
              x: { field: "seconds", type: "quantitative", title: timeTitle },
              y: { field: "rateMbps", type: "quantitative", title: "Rate (Mbit/s)" },
            },
          },
        ],
      },
    },
  );
}
