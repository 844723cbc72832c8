import type { BaselineOverlay, ReportModel } from "../report-model.js";
import { memoryAxis, memorySizes, minMaxRule, rateAxis, spreadMbps } from "./chart-parts.js";
import type { ChartSpec } from "./chart-spec.js";
import {
  legendConfig,
  probeEncoding,
  quotaLayers,
  type TargetCharts,
  targetChart,
} from "./target-chart-parts.js";

/** Legend text of a baseline overlay: the study, the region and what it measured. */
function baselineLabel(model: ReportModel, overlay: BaselineOverlay): string {
  const probe = overlay.series.probe;
  const what =
    "objectBytes" in probe
      ? `s3-get ${probe.objectBytes / 1_073_741_824} GiB conc ${probe.concurrency}, whole`
      : `iperf3 ${probe.direction} -P ${probe.parallel} -t ${probe.timeSeconds}s, sent`;
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

const sustainedShape = "sustained: median, bar min–max";
// the words every format uses for the three rates (sustained, burst, avg incl. burst)
const averageShape = "avg incl. burst: whole transfer";

/**
 * Per target: each probe's median sustained rate (min-max bar) beside its whole-transfer average
 * (burst included), the quota, and the published study's points (black diamonds), at the sizes measured.
 */
export function ratesVsMemory(context: TargetCharts): ChartSpec {
  const { target, cells } = context;
  const values = cells.flatMap((c) => {
    const probe = context.colours.name(c);
    const at = { memoryMb: c.memoryMb, probe };
    // the sustained rate carries its min-max bar; the average is a mark beside it
    return [
      ...(c.sustained
        ? [{ ...at, slot: `${probe} sustained`, rate: sustainedShape, ...spreadMbps(c.sustained) }]
        : []),
      ...(c.effective
        ? [{ ...at, slot: `${probe} average`, rate: averageShape, rateMbps: c.effective.median / 1e6 }]
        : []),
    ];
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
  // average agree (no burst) the two marks still sit side by side instead of on top of each other
  const slots = [
    ...byProbe.scale.domain.flatMap((probe) => [`${probe} sustained`, `${probe} average`]),
    ...(baseline.length > 0 ? ["study"] : []),
  ];
  const xOffset = { field: "slot", type: "nominal", scale: { domain: slots, padding: 0.6 } };
  const layers: object[] = [
    ...quotaLayers(target.quotaBitsPerSecond),
    minMaxRule(`datum.rate === '${sustainedShape}'`, { x, xOffset, color }),
    {
      mark: { type: "point", filled: true, size: 60, opacity: 1 },
      encoding: {
        x,
        xOffset,
        y: rateAxis(highest),
        color,
        shape: {
          field: "rate",
          type: "nominal",
          title: "Rate",
          scale: { domain: [sustainedShape, averageShape], range: ["circle", "square"] },
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
  const title = `${target.name}: sustained and avg incl. burst`;
  return targetChart(
    context,
    "throughput-vs-memory",
    title,
    "avg incl. burst counts the burst; so it reads high on short tests",
    {
      width: context.size.width,
      height: context.size.height,
      config: { legend: legendConfig(context.size) },
      data: { values },
      layer: layers,
    },
  );
}
