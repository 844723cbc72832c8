import type { SeriesFit, SeriesModel } from "../results/series-fit.js";
import type { Spread } from "../results/statistics.js";
import { wrap } from "./text-layout.js";

/** What `fit` prints: per direction the model with its spread over the transfers and its limits. Pure. */

const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e6).toLocaleString("en-US");
const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);
const seconds = (value: number) => (value >= 1 ? `${value.toFixed(2)} s` : `${Math.round(value * 1000)} ms`);

function spread(value: Spread | null, format: (v: number) => string): string {
  if (!value) return "-";
  return value.n >= 2 && value.min !== value.max
    ? `${format(value.median)} [${format(value.min)}-${format(value.max)}]`
    : format(value.median);
}

const countedBy = (model: SeriesModel | SeriesFit) =>
  model.counted === null
    ? ""
    : model.counted === "sender"
      ? ", counted by the sender"
      : ", counted by the receiver";

/** One line per transfer (stderr while reading). */
export function describeSeriesFit(fit: SeriesFit): string {
  const burst = fit.peakBitsPerSecond
    ? `bucket ${megabytes(fit.bucketBytes)} MB, peak ${fit.peakBitsPerSecond.bound === "at-least" ? ">= " : ""}${mbps(fit.peakBitsPerSecond.value)} Mbit/s`
    : "no burst";
  return `${fit.label}: ${fit.direction ?? "direction not stated"}, ${fit.sampleCount} samples of ${seconds(fit.intervalSeconds)}: sustained ${mbps(fit.sustainedBitsPerSecond)} Mbit/s, ${burst}`;
}

export function renderSeriesModels(models: readonly SeriesModel[], width: number): string[] {
  const lines: string[] = ["Token bucket fitted to your samples (median [min-max] over the transfers)"];
  for (const model of models) {
    lines.push(
      "",
      `${model.direction ?? "direction not stated (--direction)"}: ${model.n} transfer(s), ${spread(model.intervalSeconds, seconds)} samples${countedBy(model)}`,
      `  sustained   ${spread(model.sustainedBitsPerSecond, mbps)} Mbit/s`,
    );
    if (model.burstFound === 0) lines.push("  burst       none found");
    else {
      const peak = model.peakBitsPerSecond;
      const length = model.burstSeconds;
      lines.push(
        `  bucket      ${spread(model.bucketBytes, megabytes)} MB above the sustained rate` +
          (model.burstFound < model.n ? ` (burst in ${model.burstFound} of ${model.n})` : ""),
        peak?.bound === "at-least"
          ? `  peak        at least ${mbps(peak.spread.max)} Mbit/s (not resolved: a bound)`
          : `  peak        ${spread(peak?.spread ?? null, mbps)} Mbit/s`,
        length?.bound === "at-most"
          ? `  burst       at most ${seconds(length.spread.min)} at the peak (not resolved: a bound)`
          : `  burst       ${spread(length?.spread ?? null, seconds)} at the peak`,
      );
    }
    lines.push(`  1st sample  ${spread(model.firstSampleBitsPerSecond, mbps)} Mbit/s`);
    for (const limit of model.limits) lines.push(...wrap(`  - ${limit}`, width, "    "));
  }
  return lines;
}
