import type { TopLevelSpec } from "vega-lite";
import type { CellStatistics } from "../../results/analysis.js";
import type { BaselineOverlay, ReportModel } from "../report-model.js";
import { formatMbps } from "../units.js";
import { answerChart } from "./answer-chart.js";
import { chartSubtitle, memoryAxis, memorySizes, schema, slug } from "./chart-parts.js";
import type { ChartLayout, ChartSpec } from "./chart-spec.js";
import { fleetCharts } from "./fleet-chart.js";
import { type ProbeColours, probeColours } from "./probe-colours.js";

/** Plot sizes of the per-target charts for a desktop window and for a phone. */
const plotSizes: Record<
  ChartLayout,
  { width: number; height: number; timeColumns: number; stackLegends: boolean }
> = {
  wide: { width: 500, height: 260, timeColumns: 3, stackLegends: false },
  narrow: { width: 285, height: 200, timeColumns: 2, stackLegends: true },
};

/**
 * A title in one line, or on a phone one line for the target and one for what the chart shows
 * (the SVG's width is set from the renderer's estimate of the text, which runs long).
 */
function titleLines(title: string, size: (typeof plotSizes)[ChartLayout]): string | string[] {
  const cut = title.indexOf(": ");
  return size.stackLegends && cut > 0 ? [title.slice(0, cut + 1), title.slice(cut + 2)] : title;
}

/** Legends below the plot; on a phone one above the other, since side by side they widen the chart. */
function legendConfig(size: (typeof plotSizes)[ChartLayout]) {
  return {
    orient: "bottom",
    direction: "vertical",
    labelLimit: 0,
    ...(size.stackLegends ? { layout: { bottom: { direction: "vertical", anchor: "start" } } } : {}),
  };
}

/**
 * Every chart of a report, built from the model alone: the answer first, then per target; laid
 * out for a desktop window (the files) or a phone (the HTML page's narrow variant). Pure.
 */
export function buildCharts(model: ReportModel, layout: ChartLayout = "wide"): ChartSpec[] {
  const colours = probeColours(model);
  const charts: ChartSpec[] = [];
  const answer = answerChart(model, layout);
  if (answer) charts.push(answer);
  for (const target of model.targets) {
    const cells = model.analysis.cells.filter(
      (c) => c.targetKey === target.key && c.probe !== "info" && c.effective !== null,
    );
    if (cells.length === 0) continue;
    const context = { model, colours, target, cells, size: plotSizes[layout] };
    charts.push(ratesVsMemory(context));
    const series = timeSeries(context);
    if (series) charts.push(series);
    const cpu = cpuVsMemory(context);
    if (cpu) charts.push(cpu);
    const cost = costPerGigabyte(context);
    if (cost) charts.push(cost);
  }
  charts.push(...fleetCharts(model, colours, plotSizes[layout].width));
  return charts;
}

interface TargetCharts {
  model: ReportModel;
  colours: ProbeColours;
  target: ReportModel["targets"][number];
  /** The target's measuring cells with at least one successful invocation. */
  cells: CellStatistics[];
  size: (typeof plotSizes)[ChartLayout];
}

/** Colour = probe (fixed for the page) and probes side by side within a memory size. */
function probeEncoding({ colours, cells }: TargetCharts, legend: object = {}) {
  const scale = colours.scale(cells.map((c) => colours.name(c)));
  return {
    color: { field: "probe", type: "nominal", title: "Probe", scale, legend: { labelLimit: 0, ...legend } },
    xOffset: { field: "probe", type: "nominal", scale: { domain: scale.domain, padding: 0.6 } },
  } as const;
}

/** Legend text of a baseline overlay: the study, the region and what it measured. */
function baselineLabel(model: ReportModel, overlay: BaselineOverlay): string {
  const probe = overlay.series.probe;
  const what =
    probe.kind === "iperf3"
      ? `iperf3 ${probe.direction} -P ${probe.parallel} -t ${probe.timeSeconds}s, sent`
      : `s3-get 1 GiB conc ${probe.concurrency}, whole`;
  return `${model.baseline?.name} ${overlay.series.regionName}: ${what}`;
}

/** The published study's points at the sizes this target measured (stated, "about" or derived). */
function baselineValues({ model, target, cells }: TargetCharts) {
  const sizes = new Set(cells.map((c) => c.memoryMb));
  const overlays = (model.baseline?.overlays ?? []).filter((o) => o.targetKey === target.key);
  return overlays.flatMap((overlay) =>
    overlay.points
      .filter((point) => sizes.has(point.memoryMb))
      .map((point) => ({
        memoryMb: point.memoryMb,
        rateMbps: point.megabitsPerSecond,
        series: baselineLabel(model, overlay),
        slot: "study",
      })),
  );
}

/** The quota as a dashed grey line with its value written at the left end. */
function quotaLayers(quotaBitsPerSecond: number | null): object[] {
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

const sustainedShape = "sustained: median, bar min–max";
const effectiveShape = "effective: whole transfer incl. burst";

/**
 * Per target: each probe's median sustained rate (min-max bar) beside its effective whole-transfer
 * rate, the quota, and the published study's points (black diamonds), on the measured sizes.
 */
function ratesVsMemory(context: TargetCharts): ChartSpec {
  const { model, target, cells } = context;
  const values = cells.flatMap((c) => {
    const probe = context.colours.name(c);
    const rows: object[] = [];
    if (c.sustained)
      rows.push({
        memoryMb: c.memoryMb,
        probe,
        slot: `${probe} sustained`,
        rate: sustainedShape,
        rateMbps: c.sustained.median / 1e6,
        minMbps: c.sustained.min / 1e6,
        maxMbps: c.sustained.max / 1e6,
      });
    if (c.effective)
      rows.push({
        memoryMb: c.memoryMb,
        probe,
        slot: `${probe} effective`,
        rate: effectiveShape,
        rateMbps: c.effective.median / 1e6,
      });
    return rows;
  });
  const baseline = baselineValues(context);
  const highest = Math.max(
    ...values.map((v) => (v as { maxMbps?: number; rateMbps: number }).maxMbps ?? 0),
    ...values.map((v) => (v as { rateMbps: number }).rateMbps),
    ...baseline.map((b) => b.rateMbps),
    (target.quotaBitsPerSecond ?? 0) / 1e6,
  );
  const x = memoryAxis(memorySizes(cells));
  const { color, xOffset: byProbe } = probeEncoding(context);
  // a slot per probe and rate (and one for the study) within each size: where sustained and
  // effective agree (no burst) the two marks still sit side by side instead of on top of each other
  const slots = [
    ...byProbe.scale.domain.flatMap((probe) => [`${probe} sustained`, `${probe} effective`]),
    ...(baseline.length > 0 ? ["study"] : []),
  ];
  const xOffset = { field: "slot", type: "nominal", scale: { domain: slots, padding: 0.6 } };
  const layers: object[] = [
    ...quotaLayers(target.quotaBitsPerSecond),
    {
      transform: [{ filter: `datum.rate === '${sustainedShape}'` }],
      mark: { type: "rule", strokeWidth: 2 },
      encoding: {
        x,
        xOffset,
        y: { field: "minMbps", type: "quantitative" },
        y2: { field: "maxMbps" },
        color,
      },
    },
    {
      mark: { type: "point", filled: true, size: 60, opacity: 1 },
      encoding: {
        x,
        xOffset,
        y: {
          field: "rateMbps",
          type: "quantitative",
          title: "Rate (Mbit/s)",
          scale: { domain: [0, highest * 1.1], nice: true },
        },
        color,
        shape: {
          field: "rate",
          type: "nominal",
          title: "Rate",
          scale: { domain: [sustainedShape, effectiveShape], range: ["circle", "square"] },
          legend: { symbolFillColor: "#555", symbolStrokeColor: "#555" },
        },
      },
    },
  ];
  if (baseline.length > 0)
    layers.push({
      data: { values: baseline },
      mark: { type: "point", shape: "diamond", filled: false, size: 150, strokeWidth: 2, color: "#111" },
      encoding: {
        x,
        xOffset,
        y: { field: "rateMbps", type: "quantitative" },
        stroke: {
          field: "series",
          type: "nominal",
          title: "Published study",
          scale: { range: ["#111"] },
          // its own row above the plot: beside the other two it would make the chart too wide
          legend: { orient: "top", symbolType: "diamond", symbolFillColor: "transparent", labelLimit: 0 },
        },
      },
    });
  const title = `${target.name}: sustained and effective rate`;
  return {
    name: `throughput-vs-memory-${slug(target.name)}`,
    targetKey: target.key,
    role: "target",
    title,
    spec: {
      $schema: schema,
      title: {
        text: titleLines(title, context.size),
        subtitle: chartSubtitle(
          model,
          "the effective rate counts the burst; so it reads high on short tests",
        ),
        anchor: "start",
      },
      width: context.size.width,
      height: context.size.height,
      config: { legend: legendConfig(context.size) },
      data: { values },
      layer: layers,
    } as unknown as TopLevelSpec,
  };
}

/**
 * One median invocation per memory size (one small panel each, the probe's colour), per-interval
 * rates over time with the detected burst shaded: what the burst and the sustained rate look like.
 */
function timeSeries(context: TargetCharts): ChartSpec | null {
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
  return {
    name: `time-series-${slug(target.name)}`,
    targetKey: target.key,
    role: "target",
    title,
    spec: {
      $schema: schema,
      title: {
        text: titleLines(title, context.size),
        subtitle: chartSubtitle(
          model,
          "one median invocation per memory size; shaded: the burst detected in it",
        ),
        anchor: "start",
      },
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
    } as unknown as TopLevelSpec,
  };
}

const usedShape = "CPU used: median, bar min–max";
const shareShape = "CPU share of the environment";

/** Client CPU per cell against the environment's CPU share: a dot at its share is CPU-bound. */
function cpuVsMemory(context: TargetCharts): ChartSpec | null {
  const { model, target } = context;
  const cells = context.cells.filter((c) => c.cpuCores !== null);
  if (cells.length === 0) return null;
  const values = cells.map((c) => ({
    memoryMb: c.memoryMb,
    probe: context.colours.name(c),
    mark: usedShape,
    cores: c.cpuCores?.median ?? 0,
    minCores: c.cpuCores?.min ?? 0,
    maxCores: c.cpuCores?.max ?? 0,
  }));
  const shares = memorySizes(cells).map((memoryMb) => ({
    memoryMb,
    mark: shareShape,
    cores: cells.find((c) => c.memoryMb === memoryMb)?.cpuShareCores ?? 0,
  }));
  const x = memoryAxis(memorySizes(cells));
  const { color, xOffset } = probeEncoding(context);
  const shape = {
    field: "mark",
    type: "nominal",
    title: "Mark",
    scale: { domain: [usedShape, shareShape], range: ["circle", "stroke"] },
    legend: { symbolFillColor: "#555", symbolStrokeColor: "#222", symbolStrokeWidth: 2 },
  };
  const y = { field: "cores", type: "quantitative", title: "Client CPU (cores = CPU s per s)" };
  const title = `${target.name}: client CPU by memory size`;
  return {
    name: `cpu-vs-memory-${slug(target.name)}`,
    targetKey: target.key,
    role: "target",
    title,
    spec: {
      $schema: schema,
      title: {
        text: titleLines(title, context.size),
        subtitle: chartSubtitle(
          model,
          "a dot at its share's line is CPU-bound; the client may then set the rate",
        ),
        anchor: "start",
      },
      width: context.size.width,
      height: Math.round(context.size.height * 0.8),
      config: { legend: legendConfig(context.size) },
      layer: [
        {
          data: { values },
          mark: { type: "rule", strokeWidth: 2 },
          encoding: {
            x,
            xOffset,
            y: { field: "minCores", type: "quantitative" },
            y2: { field: "maxCores" },
            color,
          },
        },
        {
          data: { values },
          mark: { type: "point", filled: true, size: 60, opacity: 1 },
          encoding: { x, xOffset, y, color, shape },
        },
        {
          data: { values: shares },
          mark: { type: "point", filled: false, size: 900, strokeWidth: 2, color: "#222" },
          encoding: { x, y, shape },
        },
      ],
    } as unknown as TopLevelSpec,
  };
}

const recommendedShape = "recommended size";

/** Cost per GB moved at the median sustained rate, per probe and size, the recommended size ringed. */
function costPerGigabyte(context: TargetCharts): ChartSpec | null {
  const { model, target } = context;
  const cells = context.cells.filter(
    (c) => c.costPerGigabyteUsd !== null && Number.isFinite(c.costPerGigabyteUsd),
  );
  if (cells.length === 0) return null;
  const recommended = new Set(
    model.analysis.curves
      .filter((c) => c.targetKey === target.key)
      .map((c) => `${context.colours.name(c)}|${c.recommendedMemoryMb}`),
  );
  const values = cells.map((c) => {
    const probe = context.colours.name(c);
    return {
      memoryMb: c.memoryMb,
      probe,
      usdPerGb: c.costPerGigabyteUsd,
      recommended: recommended.has(`${probe}|${c.memoryMb}`) ? recommendedShape : null,
    };
  });
  const x = memoryAxis(memorySizes(cells));
  const { color, xOffset } = probeEncoding(context);
  const y = {
    field: "usdPerGb",
    type: "quantitative",
    title: "Cost (USD per GB moved)",
    axis: { format: "$.5f" },
  };
  const title = `${target.name}: cost per GB moved`;
  return {
    name: `cost-per-gb-${slug(target.name)}`,
    targetKey: target.key,
    role: "target",
    title,
    spec: {
      $schema: schema,
      title: {
        text: titleLines(title, context.size),
        subtitle: chartSubtitle(
          model,
          `at the median sustained rate; list prices of ${model.analysis.prices.retrievedOn}`,
        ),
        anchor: "start",
      },
      width: context.size.width,
      height: Math.round(context.size.height * 0.8),
      config: { legend: legendConfig(context.size) },
      data: { values },
      layer: [
        { mark: { type: "point", filled: true, size: 60, opacity: 1 }, encoding: { x, xOffset, y, color } },
        {
          transform: [{ filter: "datum.recommended !== null" }],
          mark: { type: "point", filled: false, size: 320, strokeWidth: 2, color: "#111" },
          encoding: {
            x,
            xOffset,
            y,
            shape: {
              field: "recommended",
              type: "nominal",
              title: "Ring",
              scale: { range: ["circle"] },
              legend: { symbolFillColor: "transparent", symbolStrokeColor: "#111", symbolStrokeWidth: 2 },
            },
          },
        },
      ],
    } as unknown as TopLevelSpec,
  };
}
