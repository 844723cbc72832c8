import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { describeSeriesFit, renderSeriesModels } from "../../report/series-fit-text.js";
import { outputWidth } from "../../report/text-layout.js";
import { type MeasuredSeries, SeriesFormatError } from "../../results/measured-series.js";
import { publishedAsMeasured, publishedSeries, publishedSeriesIds } from "../../results/published-series.js";
import { readSeriesFile } from "../../results/series-file.js";
import { fitSeries, type SeriesFit, type SeriesModel, seriesModels } from "../../results/series-fit.js";
import { seriesProfile, seriesReplayProbe } from "../../results/series-profile.js";
import { checkProfileName, writeProfilePlan } from "./save-profile.js";

interface FitOptions {
  direction?: string;
  published?: string[];
  saveProfile?: string;
  memoryMb: string;
  out: string;
  json?: boolean;
}

/**
 * `lambda-netbench fit FILE...`: the bucket model fitted to transfers measured elsewhere (stock
 * iperf3 -J or --json-stream output, a CSV of elapsed seconds and bytes), with what the sampling
 * cannot resolve; `--save-profile NAME` writes it as a lab profile in a plan that replays it with
 * the original's own settings.
 */
export function registerFitCommand(program: Command): void {
  program
    .command("fit")
    .description(
      "fit the token bucket (sustained rate, bucket, peak) to iperf3 -J / --json-stream output or a CSV of samples measured elsewhere",
    )
    .argument(
      "[files...]",
      "iperf3 -J or --json-stream output (one test or several), or CSV: elapsed_seconds,bytes; - reads stdin",
    )
    .option("--direction <direction>", "upload or download, for a CSV (iperf3 output says its own)")
    .option("--published <id...>", `add a published Lambda series (${publishedSeriesIds.join(", ")})`)
    .option(
      "--save-profile <name>",
      "write the fit as a lab profile, in a plan that replays it: NAME.plan.json",
    )
    .option("--memory-mb <mb>", "memory size the saved profile's rates belong to", "1024")
    .option("--out <dir>", "where --save-profile writes NAME.plan.json", ".")
    .option("--json", "print the models and every transfer's fit as JSON")
    .action(async (files: string[], options: FitOptions) => {
      process.exitCode = await fitCommand(files, options);
    });
}

const DIRECTIONS = ["upload", "download"] as const;

function problemWith(files: string[], options: FitOptions): string | null {
  if (options.direction !== undefined && !DIRECTIONS.includes(options.direction as "upload"))
    return `--direction: "${options.direction}" is not allowed (allowed: upload, download)`;
  const unknown = (options.published ?? []).find((id) => !publishedSeriesIds.includes(id));
  if (unknown !== undefined)
    return `--published: "${unknown}" is not a published series (allowed: ${publishedSeriesIds.join(", ")})`;
  if (files.length === 0 && (options.published ?? []).length === 0)
    return "give at least one FILE (iperf3 -J or --json-stream output, or a CSV), or --published ID";
  const memoryMb = Number(options.memoryMb);
  if (!(Number.isInteger(memoryMb) && memoryMb >= 128 && memoryMb <= 10_240))
    return `--memory-mb: "${options.memoryMb}" is not allowed (allowed: integers 128-10240)`;
  return options.saveProfile !== undefined ? checkProfileName(options.saveProfile) : null;
}

/** Thrown for a file that cannot be read at all (missing, a directory, not allowed). */
class UnreadableFileError extends Error {}

async function readText(file: string): Promise<string> {
  if (file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory" : String(code);
    throw new UnreadableFileError(`${file}: cannot read it (${why})`);
  }
}

async function readSeries(file: string, direction: MeasuredSeries["direction"]): Promise<MeasuredSeries[]> {
  return readSeriesFile(file === "-" ? "stdin" : file, await readText(file), direction);
}

async function fitCommand(files: string[], options: FitOptions): Promise<number> {
  const problem = problemWith(files, options);
  if (problem) return fail(problem, 2);
  const direction = (options.direction ?? null) as MeasuredSeries["direction"];
  const series: MeasuredSeries[] = [];
  try {
    for (const file of files) series.push(...(await readSeries(file, direction)));
  } catch (error) {
    if (error instanceof SeriesFormatError || error instanceof UnreadableFileError)
      return fail(error.message, 2);
    throw error;
  }
  for (const id of options.published ?? []) {
    const published = publishedSeries.find((s) => s.id === id);
    if (published) series.push(publishedAsMeasured(published));
  }
  const fits: SeriesFit[] = [];
  for (const one of series) {
    const fit = fitSeries(one);
    if (!fit)
      return fail(`${one.label}: too few samples to fit (at least 4, with the rate after the burst)`, 2);
    fits.push(fit);
    if (!options.json) console.error(describeSeriesFit(fit));
  }
  const models = seriesModels(fits);
  if (options.json) console.log(JSON.stringify({ models, fits: fits.map(withoutSamples) }, null, 2));
  else console.log(renderSeriesModels(models, outputWidth()).join("\n"));
  if (options.saveProfile === undefined) return 0;
  return saveProfile(options.saveProfile, models, Number(options.memoryMb), options.out, [
    ...files,
    ...(options.published ?? []).map((id) => `published:${id}`),
  ]);
}

async function saveProfile(
  name: string,
  models: SeriesModel[],
  memoryMb: number,
  dir: string,
  inputs: string[],
): Promise<number> {
  try {
    const profile = seriesProfile(name, models, memoryMb, inputs.join(", "));
    const path = await writeProfilePlan(profile, [memoryMb], dir, models.map(seriesReplayProbe));
    console.error(`profile written: ${path} (lambda-netbench run --config ${path} replays it)`);
    return 0;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
}

/** A fit for --json: the probe's two segments, without repeating the samples the file holds. */
function withoutSamples(fit: SeriesFit) {
  const { probeFit, ...rest } = fit;
  return { ...rest, probeTransfer: probeFit.transfer };
}

function fail(message: string, code: number): number {
  console.error(`lambda-netbench fit: ${message}`);
  return code;
}
