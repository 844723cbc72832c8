import { movesData } from "../../probes/registry.js";
import type { ReportModel } from "../report-model.js";
import { answerChart } from "./answer-chart.js";
import { bucketCharts } from "./bucket-chart.js";
import type { ChartLayout, ChartSpec } from "./chart-spec.js";
import { costPerGigabyte } from "./cost-chart.js";
import { cpuVsMemory } from "./cpu-chart.js";
import { fleetCharts } from "./fleet-chart.js";
import { latencyCharts } from "./latency-chart.js";
import { probeColours } from "./probe-colours.js";
import { ratesVsMemory } from "./rates-chart.js";
import { plotSizes } from "./target-chart-parts.js";
import { timeSeries } from "./time-series-chart.js";

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
      (c) => c.targetKey === target.key && movesData(c.probe) && c.effective !== null,
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
  charts.push(...latencyCharts(model));
  charts.push(...fleetCharts(model, colours, plotSizes[layout].width), ...bucketCharts(model));
  return charts;
}
