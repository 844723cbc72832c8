import type { TopLevelSpec } from "vega-lite";
import type { ReportModel } from "../report-model.js";
import { chartSubtitle, schema, slug } from "./chart-parts.js";
import type { ChartSpec } from "./chart-spec.js";
import type { ProbeColours } from "./probe-colours.js";

const perEnvironment = "per environment: median";
const aggregate = "aggregate of the group: median";

/**
 * Per target: the rate of one environment and the group's aggregate against N environments at
 * once, one panel per memory size, the probe's colour, the two views told apart by mark and dash. Pure.
 */
export function fleetCharts(model: ReportModel, colours: ProbeColours, plotWidth = 540): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const target of model.targets) {
    const points = model.fleets.filter((p) => `${p.platform}:${p.target}` === target.key);
    if (points.length === 0) continue;
    const values = points.flatMap((p) => {
      const base = {
        environments: p.environments,
        probe: colours.name({ probeKey: "", probeLabel: p.probeLabel, arch: p.arch }),
        memory: `${p.memoryMb.toLocaleString("en-US")} MB`,
      };
      return [
        { ...base, view: perEnvironment, rateMbps: (p.perEnvironment?.median ?? 0) / 1e6 },
        { ...base, view: aggregate, rateMbps: (p.aggregate?.median ?? 0) / 1e6 },
      ].filter((v) => v.rateMbps > 0);
    });
    const memories = [
      ...new Set(
        points.sort((a, b) => a.memoryMb - b.memoryMb).map((p) => `${p.memoryMb.toLocaleString("en-US")} MB`),
      ),
    ];
    const view = {
      field: "view",
      type: "nominal",
      title: "View",
      scale: { domain: [perEnvironment, aggregate] },
    };
    const title = `${target.name}: environments at once`;
    charts.push({
      name: `fleet-${slug(target.name)}`,
      title,
      targetKey: target.key,
      role: "fleet",
      spec: {
        $schema: schema,
        title: {
          text: title,
          subtitle: chartSubtitle(model, "medians; aggregate over the window all members shared"),
          anchor: "start",
        },
        data: { values },
        facet: {
          field: "memory",
          type: "ordinal",
          sort: memories,
          title: null,
          header: { labelFontWeight: "bold" },
        },
        columns: Math.min(memories.length, 3),
        spec: {
          width: Math.floor(plotWidth / Math.min(memories.length, 3)) - 20,
          height: 220,
          mark: { type: "line", point: { filled: true, size: 50 } },
          encoding: {
            x: {
              field: "environments",
              type: "quantitative",
              title: "Environments at once (N)",
              scale: { zero: false },
              // ticks only at the counts measured, not at counts nobody ran
              axis: { values: [...new Set(points.map((p) => p.environments))].sort((a, b) => a - b) },
            },
            y: { field: "rateMbps", type: "quantitative", title: "Rate (Mbit/s)", scale: { zero: true } },
            color: {
              field: "probe",
              type: "nominal",
              title: "Probe",
              scale: colours.scale(values.map((v) => v.probe)),
              legend: { labelLimit: 0 },
            },
            detail: { field: "view" },
            strokeDash: {
              ...view,
              scale: {
                ...view.scale,
                range: [
                  [1, 0],
                  [5, 3],
                ],
              },
              legend: { symbolType: "stroke" },
            },
            shape: { ...view, scale: { ...view.scale, range: ["circle", "square"] } },
          },
        },
        config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0 } },
      } as unknown as TopLevelSpec,
    });
  }
  return charts;
}
