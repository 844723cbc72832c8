import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { validatePlan } from "../../src/plan/load-plan.js";
import type { Plan } from "../../src/plan/plan-schema.js";
import { publishedSeries, publishedSeriesIds } from "../../src/results/published-series.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { intervalRates, normalizeSamples } from "../../src/results/samples.js";
import { median } from "../../src/results/statistics.js";
import { runCli } from "./cli-process.js";

/**
 * The round trip of a series measured elsewhere (issue 28), shared by its test at 1/8 rate
 * (test/e2e/fit-replay-on-lab.test.ts) and its benchmark at full rate (bench/replay.bench.ts): a
 * published 1 s iperf3 series fitted and saved by the CLI as a user would, and the figures the
 * issue judges a replay by, original against replay: each of the first three intervals and the
 * sustained median (the median of the intervals after the first).
 */

/** The published series both replay: a 1,024 MB function in eu-north-1 (sjakthol 2024). */
export const PUBLISHED_REPLAY_ID = "sjakthol-2024-eu-north-1-1024";
const SAVED_PROFILE = "published-replay";

/**
 * `lambda-netbench fit --published ID --save-profile published-replay --out DIR`: the plan it
 * saved, validated, and the file's path.
 */
export async function fitPublished(id: string, dir: string): Promise<{ plan: Plan; path: string }> {
  const fit = await runCli(["fit", "--published", id, "--save-profile", SAVED_PROFILE, "--out", dir]);
  if (fit.code !== 0) throw new Error(`fit --published ${id} exited ${fit.code}: ${fit.stderr}`);
  const path = join(dir, `${SAVED_PROFILE}.plan.json`);
  return { plan: validatePlan(JSON.parse(await readFile(path, "utf8"))), path };
}

/** A published series' intervals as published, in Mbit/s. */
export function publishedIntervalsMbps(id: string): number[] {
  const series = publishedSeries.find((s) => s.id === id);
  if (!series) throw new Error(`published series: "${id}" is not one of ${publishedSeriesIds.join(", ")}`);
  return series.intervals.map((interval) => interval.bitsPerSecond / 1e6);
}

/**
 * The sender's intervals of an upload record, in Mbit/s (what stock iperf3 -J printed): what the
 * kernel accepted, which arrives in steps of about half a send buffer (about 0.5 MB at 78 Mbit/s
 * here): small at full rate, 4.2 Mbit/s in a 1 s interval at 1/8.
 */
export function senderIntervalsMbps(record: ResultRecord): number[] {
  const intervals = record.iperf3?.intervals.filter((interval) => interval.sender) ?? [];
  return intervals.map((interval) => interval.bitsPerSecond / 1e6);
}

/**
 * The probe's own 1 s samples of a record, in Mbit/s: bytes acknowledged by the peer over each
 * interval's measured length (src/probes/interval-sampler.ts), so no step of the send buffer
 * and no nominal boundary is in them.
 */
export function sampleIntervalsMbps(record: ResultRecord): number[] {
  return intervalRates(normalizeSamples(record.samples)).map((rate) => rate.bitsPerSecond / 1e6);
}

/** One figure of a replay beside the original's. */
export interface ReplayFigure {
  /** "interval 1", ..., or "sustained median (intervals after the first)". */
  what: string;
  originalMbps: number;
  /** Each replay's figure, in the order the replays ran. */
  runsMbps: number[];
  /** The median over the replays: what is judged. */
  replayMbps: number;
  /** replayMbps / originalMbps - 1. */
  error: number;
}

/** The first three intervals and the sustained median of each replay, beside the original's. */
export function replayFigures(
  originalMbps: number[],
  replaysMbps: number[][],
): { intervals: ReplayFigure[]; sustained: ReplayFigure } {
  const figure = (what: string, original: number, runs: number[]): ReplayFigure => {
    const replay = median(runs);
    return { what, originalMbps: original, runsMbps: runs, replayMbps: replay, error: replay / original - 1 };
  };
  const intervals = [0, 1, 2].map((index) =>
    figure(
      `interval ${index + 1}`,
      originalMbps[index] ?? Number.NaN,
      replaysMbps.map((replay) => replay[index] ?? 0),
    ),
  );
  const sustained = figure(
    "sustained median (intervals after the first)",
    median(originalMbps.slice(1)),
    replaysMbps.map((replay) => median(replay.slice(1))),
  );
  return { intervals, sustained };
}
