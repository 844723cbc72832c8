import type { TopLevelSpec } from "vega-lite";
import type { ReportModel } from "../report-model.js";
import type { ChartSpec } from "./chart-spec.js";

/**
 * Per target: the rate of one environment and the group's aggregate against N environments at
 * once, one line pair per probe and memory size. Pure.
 */
export function fleetCharts(model: ReportModel): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const target of model.targets) {
    const points = model.fleets.filter((p) => `${p.platform}:${p.target}` === target.key);
    if (points.length === 0) continue;
    const values = points.flatMap((p) => {
      const series = `${p.probeLabel}, ${p.memoryMb} MB`;
      return [
        {
          environments: p.environments,
          view: "per environment",
          series,
          mbps: (p.perEnvironment?.median ?? 0) / 1e6,
        },
        { environments: p.environments, view: "aggregate", series, mbps: (p.aggregate?.median ?? 0) / 1e6 },
      ].filter((v) => v.mbps > 0);
    });
    const title = `${target.name}: environments at once`;
    const slug = target.name.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase();
    charts.push({
      name: `fleet-${slug}`,
      title,
      spec: {
        $schema: "https://vega.github.io/schema/vega-lite/v6.json",
        title: {
          text: title,
          subtitle: [
            `${model.label ? `${model.label.toUpperCase()} results (local lab) — ` : ""}medians; aggregate over the window all members shared`,
          ],
        },
        width: 560,
        height: 300,
        config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0, columns: 2 } },
        data: { values },
        mark: { type: "line", point: { filled: true, size: 50 } },
        encoding: {
          x: {
            field: "environments",
            type: "quantitative",
            title: "Environments at once (N)",
            scale: { zero: false },
          },
          y: { field: "mbps", type: "quantitative", title: "Throughput (Mbit/s)", scale: { zero: true } },
          color: { field: "series", type: "nominal", title: "Probe, memory" },
          strokeDash: { field: "view", type: "nominal", title: "View" },
          tooltip: [
            { field: "series" },
            { field: "view" },
            { field: "environments", title: "N" },
            { field: "mbps", title: "Median (Mbit/s)", format: ",.0f" },
          ],
        },
      } as TopLevelSpec,
    });
  }
  return charts;
}
