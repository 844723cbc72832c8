import type { TopLevelSpec } from "vega-lite";
import type { LatencyCurve } from "../../results/latency-cells.js";
import { modeText, requestText } from "../latency-section.js";
import type { ReportModel } from "../report-model.js";
import type { ChartSpec } from "./chart-spec.js";

/**
 * Per target: the time to last byte's p50, p90 and p99 by memory size (categorical axis at the
 * sizes tried), one colour per request size and connection mode, one dash per percentile; a
 * percentile n cannot support is left out, never drawn as the maximum. Log scale: a 128 MB
 * new connection and a 3,008 MB kept-alive one differ by tens. Pure.
 */
export function latencyCharts(model: ReportModel): ChartSpec[] {
  const byTarget = new Map<string, LatencyCurve[]>();
  for (const curve of model.analysis.latency.curves)
    byTarget.set(curve.targetKey, [...(byTarget.get(curve.targetKey) ?? []), curve]);
  return [...byTarget.values()].map((curves) => latencyChart(curves, model.label));
}

function latencyChart(curves: LatencyCurve[], label: string | null): ChartSpec {
  const first = curves[0] as LatencyCurve;
  const multiArch = new Set(curves.map((c) => c.arch)).size > 1;
  const values = curves.flatMap((curve) => {
    const series = `${requestText(curve.requestBytes, curve.ranged)}, ${modeText(curve.mode)}${multiArch ? ` (${curve.arch})` : ""}`;
    return curve.points.flatMap((p) =>
      (
        [
          ["p50", p.p50Seconds],
          ["p90", p.p90Seconds],
          ["p99", p.p99Seconds],
        ] as const
      ).flatMap(([percentile, seconds]) =>
        seconds === null
          ? []
          : [
              {
                memory: `${p.memoryMb} MB`,
                memoryMb: p.memoryMb,
                series,
                percentile,
                ms: seconds * 1000,
                n: p.n,
              },
            ],
      ),
    );
  });
  const sizes = [...new Set(curves.flatMap((c) => c.points.map((p) => p.memoryMb)))].sort((a, b) => a - b);
  const title = `${first.target}: S3 GET time to last byte by memory size`;
  return {
    name: `latency-vs-memory-${first.target.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase()}`,
    title,
    targetKey: first.targetKey,
    role: "target",
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: [
          `${label ? `${label.toUpperCase()} results (local lab) — ` : ""}solid p50, dashed p90, dotted p99 (nearest rank; a percentile n cannot support is left out)`,
        ],
      },
      width: 560,
      height: 300,
      data: { values },
      mark: { type: "line", point: true },
      encoding: {
        x: {
          field: "memory",
          type: "ordinal",
          sort: sizes.map((mb) => `${mb} MB`),
          title: "Memory (MB)",
        },
        y: {
          field: "ms",
          type: "quantitative",
          scale: { type: "log" },
          title: "Time to last byte (ms, log scale)",
        },
        color: { field: "series", type: "nominal", title: "Request, connection" },
        strokeDash: {
          field: "percentile",
          type: "nominal",
          sort: ["p50", "p90", "p99"],
          scale: {
            domain: ["p50", "p90", "p99"],
            range: [
              [1, 0],
              [6, 3],
              [2, 2],
            ],
          },
          title: "Percentile",
        },
        detail: { field: "percentile" },
        tooltip: [
          { field: "series", title: "request" },
          { field: "memory", title: "memory" },
          { field: "percentile", title: "percentile" },
          { field: "ms", title: "ms", format: ",.2f" },
          { field: "n", title: "n" },
        ],
      },
    } as TopLevelSpec,
  };
}
