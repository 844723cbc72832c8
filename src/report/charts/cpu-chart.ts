import { memoryAxis, memorySizes, minMaxRule } from "./chart-parts.js";
import type { ChartSpec } from "./chart-spec.js";
import { legendConfig, probeEncoding, type TargetCharts, targetChart } from "./target-chart-parts.js";

const usedShape = "CPU used: median, bar min–max";
const shareShape = "CPU share of the environment";

/** Client CPU per cell against the environment's CPU share: a dot at its share is CPU-bound. */
export function cpuVsMemory(context: TargetCharts): ChartSpec | null {
  const { target } = context;
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
  return targetChart(
    context,
    "cpu-vs-memory",
    title,
    "a dot at its share's line is CPU-bound; the client may then set the rate",
    {
      width: context.size.width,
      height: Math.round(context.size.height * 0.8),
      config: { legend: legendConfig(context.size) },
      layer: [
        { data: { values }, ...minMaxRule("true", { x, xOffset, color }, "Cores") },
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
    },
  );
}
