import type { TopLevelSpec } from "vega-lite";
import type { BaselineOverlay, ReportModel } from "../report-model.js";
import { bucketCharts } from "./bucket-chart.js";
import type { ChartSpec } from "./chart-spec.js";
import { fleetCharts } from "./fleet-chart.js";

const width = 560;
const height = 300;

/** Every chart of a report, built from the model alone. Pure. */
export function buildCharts(model: ReportModel): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const shared = sharedThroughputChart(model);
  if (shared) charts.push(shared);
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
  charts.push(...fleetCharts(model), ...bucketCharts(model));
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

/** Legend text of a baseline overlay: the study, the region and what it measured. */
function baselineLabel(model: ReportModel, overlay: BaselineOverlay): string {
  const probe = overlay.series.probe;
  const what =
    probe.kind === "iperf3"
      ? `iperf3 ${probe.direction} -P ${probe.parallel} -t ${probe.timeSeconds}s, sum_sent`
      : `s3-get 1 GiB conc ${probe.concurrency}, whole download`;
  return `${model.baseline?.name}: ${overlay.series.regionName} (${overlay.series.region}) ${what}`;
}

/** Points of the published study for the chart (stated, "about" or derived from seconds per object). */
function baselineValues(model: ReportModel, overlays: BaselineOverlay[]) {
  return overlays.flatMap((overlay) =>
    overlay.points.map((point) => ({
      memoryMb: point.memoryMb,
      mbps: point.megabitsPerSecond,
      series: baselineLabel(model, overlay),
      basis: point.basis,
      statement: point.statement,
    })),
  );
}

function baselineLayer(values: ReturnType<typeof baselineValues>) {
  return {
    data: { values },
    mark: { type: "point", shape: "diamond", filled: false, size: 140, strokeWidth: 2, color: "#111" },
    encoding: {
      x: { field: "memoryMb", type: "quantitative" },
      y: { field: "mbps", type: "quantitative" },
      shape: {
        field: "series",
        type: "nominal",
        title: "Published baseline",
        scale: { range: ["diamond", "square", "triangle-up", "cross"] },
      },
      tooltip: [
        { field: "series", title: "Baseline" },
        { field: "memoryMb", title: "Memory (MB)" },
        { field: "mbps", title: "Mbit/s", format: ",.0f" },
        { field: "basis", title: "Basis" },
        { field: "statement", title: "The study says" },
      ],
    },
  };
}

/**
 * Throughput vs memory for one target: per probe, the median sustained rate (solid, min-max
 * whiskers) and the median effective whole-transfer rate (dotted); the quota dashed; the published
 * baseline's points as open diamonds.
 */
function throughputVsMemory(model: ReportModel, targetKey: string): ChartSpec | null {
  const target = model.targets.find((t) => t.key === targetKey);
  const cells = model.analysis.cells.filter(
    (c) => c.targetKey === targetKey && c.effective !== null && c.probe !== "info",
  );
  if (!target || cells.length === 0) return null;
  const multiArch = model.analysis.cells.some((o) => o.arch !== cells[0]?.arch);
  const values = cells.flatMap((c) => {
    const probe = `${c.probeLabel}${multiArch ? ` (${c.arch})` : ""}`;
    const rows = [];
    if (c.sustained)
      rows.push({
        memoryMb: c.memoryMb,
        probe,
        rate: "sustained",
        medianMbps: c.sustained.median / 1e6,
        minMbps: c.sustained.min / 1e6,
        maxMbps: c.sustained.max / 1e6,
        n: c.sustained.n,
      });
    if (c.effective)
      rows.push({
        memoryMb: c.memoryMb,
        probe,
        rate: "effective",
        medianMbps: c.effective.median / 1e6,
        minMbps: c.effective.min / 1e6,
        maxMbps: c.effective.max / 1e6,
        n: c.effective.n,
      });
    return rows;
  });
  const overlays = (model.baseline?.overlays ?? []).filter((o) => o.targetKey === targetKey);
  const baseline = baselineValues(model, overlays);
  const title = `${target.name}: throughput vs memory`;
  // head room above the highest whisker and the quota line, so neither sits on the frame
  const yMax =
    Math.max(
      ...values.map((v) => v.maxMbps),
      ...baseline.map((b) => b.mbps),
      (target.quotaBitsPerSecond ?? 0) / 1e6,
    ) * 1.1;
  const x = {
    field: "memoryMb",
    type: "quantitative",
    title: "Memory (MB)",
    scale: { zero: false },
  } as const;
  const color = { field: "probe", type: "nominal", title: "Probe" } as const;
  const strokeDash = {
    field: "rate",
    type: "nominal",
    title: "Rate",
    scale: {
      domain: ["sustained", "effective"],
      range: [
        [1, 0],
        [2, 3],
      ],
    },
  } as const;
  const layers: object[] = [
    {
      transform: [{ filter: "datum.rate === 'sustained'" }],
      mark: { type: "rule", strokeWidth: 1.5 },
      encoding: { x, y: { field: "minMbps", type: "quantitative" }, y2: { field: "maxMbps" }, color },
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
        color,
        strokeDash,
        detail: { field: "rate" },
        tooltip: [
          { field: "probe" },
          { field: "rate" },
          { field: "memoryMb", title: "Memory (MB)" },
          { field: "medianMbps", title: "Median (Mbit/s)", format: ",.0f" },
          { field: "n" },
        ],
      },
    },
  ];
  if (baseline.length > 0) layers.push(baselineLayer(baseline));
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
        subtitle: subtitle(
          model,
          `solid: median sustained (whiskers min-max); dotted: effective whole transfer; dashed: quota${baseline.length > 0 ? "; diamonds: published study" : ""}`,
        ),
      },
      width,
      height,
      // probe, rate and baseline legends stacked beside the plot, not in one very wide row below it
      config: { legend: { orient: "right", direction: "vertical", labelLimit: 0 } },
      data: { values },
      layer: layers,
    } as TopLevelSpec,
  };
}

/**
 * Every target on one chart for the plan's first probe (its headline): median sustained rate
 * per memory size, one colour per target, with the published baseline's points. Only when the
 * run has two or more targets (two regions, two profiles, or both).
 */
function sharedThroughputChart(model: ReportModel): ChartSpec | null {
  if (model.targets.length < 2) return null;
  const first = model.analysis.cells.find((c) => c.probe !== "info");
  if (!first) return null;
  const cells = model.analysis.cells.filter(
    (c) => c.probeKey === first.probeKey && c.arch === first.arch && c.sustained !== null,
  );
  if (new Set(cells.map((c) => c.targetKey)).size < 2) return null;
  const values = cells.map((c) => ({
    memoryMb: c.memoryMb,
    target: c.target,
    medianMbps: (c.sustained?.median ?? 0) / 1e6,
    minMbps: (c.sustained?.min ?? 0) / 1e6,
    maxMbps: (c.sustained?.max ?? 0) / 1e6,
    n: c.sustained?.n ?? 0,
  }));
  const overlays = (model.baseline?.overlays ?? []).filter(
    (o) => o.probeKey === first.probeKey && o.arch === first.arch,
  );
  const baseline = baselineValues(model, overlays);
  const x = {
    field: "memoryMb",
    type: "quantitative",
    title: "Memory (MB)",
    scale: { zero: false },
  } as const;
  const color = { field: "target", type: "nominal", title: "Target" } as const;
  const layers: object[] = [
    {
      mark: { type: "rule", strokeWidth: 1.5 },
      encoding: { x, y: { field: "minMbps", type: "quantitative" }, y2: { field: "maxMbps" }, color },
    },
    {
      mark: { type: "line", point: { filled: true, size: 50 } },
      encoding: {
        x,
        y: { field: "medianMbps", type: "quantitative", title: "Sustained throughput (Mbit/s)" },
        color,
        tooltip: [
          { field: "target" },
          { field: "memoryMb", title: "Memory (MB)" },
          { field: "medianMbps", title: "Median sustained (Mbit/s)", format: ",.0f" },
          { field: "n" },
        ],
      },
    },
  ];
  if (baseline.length > 0) layers.push(baselineLayer(baseline));
  const title = `All targets: sustained throughput vs memory (${first.probeLabel})`;
  return {
    name: `throughput-vs-memory-all-targets`,
    title,
    spec: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: {
        text: title,
        subtitle: subtitle(
          model,
          `median sustained per size, whiskers min-max${baseline.length > 0 ? "; diamonds: published study" : ""}`,
        ),
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
  const bursts = picks
    .filter((p) => p.burstSeconds !== null)
    .map((p) => ({ from: 0, to: p.burstSeconds as number }));
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
        subtitle: subtitle(
          model,
          "shaded: the burst detected in each invocation; one median invocation per size",
        ),
      },
      width,
      height,
      config: { legend: { orient: "bottom", direction: "vertical", labelLimit: 0, columns: 2 } },
      layer: [
        {
          data: { values: bursts.length > 0 ? bursts : [{ from: 0, to: 0 }] },
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
