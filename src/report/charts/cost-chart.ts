import { memoryAxis, memorySizes } from "./chart-parts.js";
import type { ChartSpec } from "./chart-spec.js";
import { legendConfig, probeEncoding, type TargetCharts, targetChart } from "./target-chart-parts.js";

const recommendedShape = "recommended size";

/** Cost per GB moved at the median sustained rate, per probe and size, the recommended size ringed. */
export function costPerGigabyte(context: TargetCharts): ChartSpec | null {
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
  return targetChart(
    context,
    "cost-per-gb",
    title,
    `at the median sustained rate; list prices of ${model.analysis.prices.retrievedOn}`,
    {
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
    },
  );
}
