import type { TopLevelSpec } from "vega-lite";
import type { ReportModel } from "../report-model.js";
import { fleetCharts } from "./fleet-chart.js";

/** A chart of the report: a stable file name, a title and its Vega-Lite spec (data inline). */
export interface ChartSpec {
  /** File stem for SVG/PNG export, e.g. "throughput-vs-memory-default-625". */
  name: string;
  title: string;
  spec: TopLevelSpec;
}

const width = 560;
const height = 300;

/** Every chart of a report, built from the model alone. Pure. */
export function buildCharts(model: ReportModel): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const target of model.targets) {
    const through = throughputVsMemory(model, target.key);
    if (through) charts.push(through);
    const series = timeSeries(model, target.key);
    if (series) charts.push(series);
    const cpu = cpuVsThroughput(model, target.key);
    if (cpu) charts.push(cpu);
    const cost = costPerGigabyte(model, target.key);
    if (cost) charts.push(cost);
  }
  charts.push(...fleetCharts(model));
  return charts;
}

function subtitle(model: ReportModel, extra: string): string[] {
  return [model.label ? `${model.label.toUpperCase()} results (local lab) — ${extra}` : extra];
}

function slug(text: string): string {
  return text
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}

function throughputVsMemory(model: ReportModel, targetKey: string): ChartSpec | null {
  const target = model.targets.find((t) => t.key === targetKey);
  const cells = model.analysis.cells.filter(
    (c) => c.targetKey === targetKey && c.average !== null && c.probe !== "info",
  );
  if (!target || cells.length === 0) return null;
  const values = cells.map((c) => ({
    memoryMb: c.memoryMb,
    probe: `${c.probeLabel}${model.analysis.cells.some((o) => o.arch !== c.arch) ? ` (${c.arch})` : ""}`,
    medianMbps: (c.average?.median ?? 0) / 1e6,
    minMbps: (c.average?.min ?? 0) / 1e6,
    maxMbps: (c.average?.max ?? 0) / 1e6,
    n: c.average?.n ?? 0,
  }));
  const title = `${target.name}: throughput vs memory`;
  // head room above the highest whisker and the quota line, so neither sits on the frame
  const yMax = Math.max(...values.map((v) => v.maxMbps), (target.quotaBitsPerSecond ?? 0) / 1e6) * 1.1;
  const x = {
    field: "memoryMb",
    type: "quantitative",
    title: "Memory (MB)",
    scale: { zero: false },
  } as const;
  const layers: TopLevelSpec[] | object[] = [
    {
      mark: { type: "rule", strokeWidth: 1.5 },
      encoding: {
        x,
        y: { field: "minMbps", type: "quantitative" },
        y2: { field: "maxMbps" },
        color: { field: "probe", type: "nominal", title: "Probe" },
      },
    },
    {
      mark: { type: "line", point: { filled: true, size: 50 } },
      encoding: {
        x,
        y: {
          field: "medianMbps",
          type: "quantitative",
          title: "Throughput (Mbit/s)",
          scale: { domain: [0, yMax], nice: true },
        },
        color: { field: "probe", type: "nominal", title: "Probe" },
        tooltip: [
          { field: "probe" },
          { field: "memoryMb", title: "Memory (MB)" },
          { field: "medianMbps", title: "Median (Mbit/s)", format: ",.0f" },
          { field: "n" },
        ],
      },
    },
  ];
  if (target.quotaBitsPerSecond) {
    const quota = target.quotaBitsPerSecond / 1e6;
    layers.push(
      {
        data: { values: [{}] },
        mark: { type: "rule", strokeDash: [6, 4], color: "#b00" },
        encoding: { y: { datum: quota } },
      },
      {
        data: { values: [{}] },
        mark: { type: "text", align: "left", dx: 4, dy: -6, color: "#b00", fontSize: 11 },
        encoding: {
          y: { datum: quota },
          x: { value: 0 },
          text: { value: `quota ${quota.toLocaleString("en-US")} Mbit/s` },
        },
      },
    );
  }
  return {
    name: `throughput-vs-memory-${slug(target.name)}`,
    title,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: subtitle(model, "median per size; whiskers: min-max; dashed: quota"),
      },
      width,
      height,
      config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0, columns: 2 } },
      data: { values },
      layer: layers,
    } as TopLevelSpec,
  };
}

function timeSeries(model: ReportModel, targetKey: string): ChartSpec | null {
  const picks = model.series.filter((s) => s.targetKey === targetKey && s.points.length > 0);
  const target = model.targets.find((t) => t.key === targetKey);
  if (!target || picks.length === 0) return null;
  const values = picks.flatMap((pick) =>
    pick.points.map((p) => ({
      seconds: p.startSeconds,
      mbps: p.bitsPerSecond / 1e6,
      memory: `${pick.memoryMb} MB`,
    })),
  );
  const memoryOrder = [
    ...new Set(picks.sort((a, b) => a.memoryMb - b.memoryMb).map((p) => `${p.memoryMb} MB`)),
  ];
  const title = `${target.name}: throughput over time (${picks[0]?.probeLabel})`;
  return {
    name: `time-series-${slug(target.name)}`,
    title,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: subtitle(model, "shaded: burst (first second); one median invocation per size"),
      },
      width,
      height,
      config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0, columns: 2 } },
      layer: [
        {
          data: { values: [{ from: 0, to: 1 }] },
          mark: { type: "rect", color: "#f2c14e", opacity: 0.25 },
          encoding: { x: { field: "from", type: "quantitative" }, x2: { field: "to" } },
        },
        {
          data: { values },
          mark: { type: "line", interpolate: "step-after" },
          encoding: {
            x: { field: "seconds", type: "quantitative", title: "Time since start of the test (s)" },
            y: { field: "mbps", type: "quantitative", title: "Throughput (Mbit/s)" },
            color: { field: "memory", type: "ordinal", title: "Memory", sort: memoryOrder },
          },
        },
      ],
    } as TopLevelSpec,
  };
}

function cpuVsThroughput(model: ReportModel, targetKey: string): ChartSpec | null {
  const points = model.cpuPoints.filter((p) => p.targetKey === targetKey);
  const target = model.targets.find((t) => t.key === targetKey);
  if (!target || points.length === 0) return null;
  const values = points.map((p) => ({
    mbps: p.bitsPerSecond / 1e6,
    cpuCores: p.cpuCores,
    memoryMb: p.memoryMb,
    probe: p.probeLabel,
    share: p.cpuShareCores,
  }));
  const title = `${target.name}: client CPU vs throughput`;
  return {
    name: `cpu-vs-throughput-${slug(target.name)}`,
    title,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: subtitle(model, "one point per invocation; near the CPU share = CPU-bound"),
      },
      width,
      height,
      config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0, columns: 2 } },
      data: { values },
      mark: { type: "point", filled: true, size: 60, opacity: 0.8 },
      encoding: {
        x: { field: "mbps", type: "quantitative", title: "Throughput (Mbit/s, whole test)" },
        y: { field: "cpuCores", type: "quantitative", title: "Client CPU (cores = CPU s per s)" },
        color: { field: "memoryMb", type: "ordinal", title: "Memory (MB)" },
        shape: { field: "probe", type: "nominal", title: "Probe" },
        tooltip: [
          { field: "probe" },
          { field: "memoryMb" },
          { field: "mbps", format: ",.0f" },
          { field: "cpuCores", format: ".2f" },
          { field: "share", format: ".2f" },
        ],
      },
    } as TopLevelSpec,
  };
}

function costPerGigabyte(model: ReportModel, targetKey: string): ChartSpec | null {
  const cells = model.analysis.cells.filter(
    (c) =>
      c.targetKey === targetKey && c.costPerGigabyteUsd !== null && Number.isFinite(c.costPerGigabyteUsd),
  );
  const target = model.targets.find((t) => t.key === targetKey);
  if (!target || cells.length === 0) return null;
  const recommended = new Set(
    model.analysis.curves
      .filter((c) => c.targetKey === targetKey)
      .map((c) => `${c.probeLabel}|${c.arch}|${c.recommendedMemoryMb}`),
  );
  const values = cells.map((c) => ({
    memoryMb: c.memoryMb,
    probe: c.probeLabel,
    usdPerGb: c.costPerGigabyteUsd,
    recommended: recommended.has(`${c.probeLabel}|${c.arch}|${c.memoryMb}`) ? "recommended" : "other",
  }));
  const title = `${target.name}: cost per GB moved`;
  return {
    name: `cost-per-gb-${slug(target.name)}`,
    title,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: subtitle(
          model,
          `list price of ${model.analysis.prices.retrievedOn}; ring: recommended size`,
        ),
      },
      width,
      height,
      config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0, columns: 2 } },
      data: { values },
      layer: [
        {
          mark: { type: "line", point: true },
          encoding: {
            x: { field: "memoryMb", type: "quantitative", title: "Memory (MB)" },
            y: {
              field: "usdPerGb",
              type: "quantitative",
              title: "Cost (USD per GB moved)",
              axis: { format: "$.5f" },
            },
            color: { field: "probe", type: "nominal", title: "Probe" },
          },
        },
        {
          transform: [{ filter: "datum.recommended === 'recommended'" }],
          mark: { type: "point", size: 300, strokeWidth: 2.5, color: "#111" },
          encoding: {
            x: { field: "memoryMb", type: "quantitative" },
            y: { field: "usdPerGb", type: "quantitative" },
          },
        },
      ],
    } as TopLevelSpec,
  };
}
