import { z } from "zod";
import { memoryMbSchema } from "../plan/lambda-memory.js";
import { isEmulated, type PlatformName } from "../plan/platforms.js";
import { probeNamed } from "../probes/registry.js";
import seed2026 from "./baselines/seed-2026.json" with { type: "json" };
import { publishedIdSchema, transcribedOnSchema } from "./published-file.js";

/**
 * Published reference datasets (baselines) a run is compared with: `compare RUN --baseline NAME`
 * and the report's charts. Each holds only what its source states: a number where the study gives
 * one (flagged `approximate` when it says "about"), otherwise null with the study's own words in
 * `statement`. Nothing here is measured by this tool.
 */

const figureSchema = z
  .object({
    memoryMb: memoryMbSchema,
    /** The rate the study states for this memory size, Mbit/s; null when it states none. */
    megabitsPerSecond: z.number().positive().nullable(),
    /** Seconds to move one object (s3-get), as the study timed it; null when it states none. */
    secondsPerObject: z.number().positive().nullable(),
    /** True when the study gives the number as "about". */
    approximate: z.boolean(),
    /** What the study says about this point, in its terms (a shape when there is no number). */
    statement: z.string().min(1),
  })
  .strict();

const probeSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("iperf3"),
      direction: z.enum(["upload", "download", "bidir"]),
      timeSeconds: z.number().positive(),
      /** Seconds iperf3 left out of its sums at the start (-O); 0: none. */
      omitSeconds: z.number().nonnegative(),
      parallel: z.number().int().positive(),
      /** Which of iperf3's end sums the study kept: sum_sent (the sender's) or sum_received. */
      side: z.enum(["sent", "received"]),
    })
    .strict(),
  z
    .object({
      kind: z.literal("s3-get"),
      objectBytes: z.number().int().positive(),
      concurrency: z.number().int().positive(),
      chunkMib: z.number().positive(),
      /** What the seconds per object span: the whole download (set-up, HEAD, transfer) or the transfer alone. */
      timed: z.enum(["whole", "transfer"]),
    })
    .strict(),
]);

const seriesSchema = z
  .object({
    id: publishedIdSchema,
    region: z.string().min(1),
    regionName: z.string().min(1),
    /** The bandwidth quota in force during the study in that region, Mbit/s. */
    quotaMegabitsPerSecond: z.number().positive(),
    probe: probeSchema,
    /** How the study measured (which side, which timer). */
    measure: z.string().min(1),
    /** How repetitions were reduced, e.g. "median of 3 runs". */
    aggregation: z.string().min(1),
    /** The curve as the study describes it. */
    shape: z.string().min(1),
    figures: z.array(figureSchema),
  })
  .strict();

export const baselineSchema = z
  .object({
    name: publishedIdSchema,
    title: z.string().min(1),
    source: z.string().min(1),
    /** When the study measured, YYYY-MM. */
    studyPeriod: z.object({ from: z.string(), to: z.string() }).strict(),
    /** When its figures were transcribed into this file, YYYY-MM-DD. */
    transcribedOn: transcribedOnSchema,
    rig: z.string().min(1),
    series: z.array(seriesSchema).min(1),
  })
  .strict();

export type Baseline = z.output<typeof baselineSchema>;
export type BaselineSeries = Baseline["series"][number];
export type BaselineFigure = BaselineSeries["figures"][number];

const datasets: Record<string, unknown> = { "seed-2026": seed2026 };

/** Names accepted by `loadBaseline` and `--baseline`. */
export const baselineNames: readonly string[] = Object.keys(datasets);

/** A baseline by name, validated; a clear error naming the allowed names otherwise. */
export function loadBaseline(name: string): Baseline {
  const data = Object.hasOwn(datasets, name) ? datasets[name] : undefined;
  if (data === undefined)
    throw new Error(`baseline: unknown baseline "${name}" (allowed: ${baselineNames.join(", ")})`);
  const parsed = baselineSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`baseline ${name} is invalid: ${issues}`);
  }
  return parsed.data;
}

/** One point a chart or a table can show, with how it was obtained from the study. */
export interface BaselinePoint {
  memoryMb: number;
  megabitsPerSecond: number;
  /**
   * stated: the study's number; approximate: the study's "about" number; derived: computed here
   * from the study's seconds per object (object bytes x 8 / seconds), not a rate it states.
   */
  basis: "stated" | "approximate" | "derived";
  statement: string;
}

/** The plottable rates of a series: stated ones, else derived from seconds per object; shapes without a number are left out. */
export function baselinePoints(series: BaselineSeries): BaselinePoint[] {
  const points: BaselinePoint[] = [];
  for (const figure of series.figures) {
    if (figure.megabitsPerSecond !== null) {
      points.push({
        memoryMb: figure.memoryMb,
        megabitsPerSecond: figure.megabitsPerSecond,
        basis: figure.approximate ? "approximate" : "stated",
        statement: figure.statement,
      });
    } else if (figure.secondsPerObject !== null && "objectBytes" in series.probe) {
      points.push({
        memoryMb: figure.memoryMb,
        megabitsPerSecond: (series.probe.objectBytes * 8) / figure.secondsPerObject / 1e6,
        basis: "derived",
        statement: figure.statement,
      });
    }
  }
  return points;
}

/** What a run's curve is, for matching it with a baseline series. */
export interface CurveIdentity {
  platform: PlatformName;
  /** AWS region or lab profile. */
  target: string;
  /** The quota in force for the target (the lab profile's rate), bit/s. */
  quotaBitsPerSecond: number | null;
  probe: string;
  parameters: Record<string, unknown>;
}

/**
 * The baseline series that measured the same quantity: same probe kind, direction (where it has
 * one) and stream count (the probe's streams parameter: iperf3 parallel, s3-get concurrency), and
 * on AWS the same region; in the lab, the region whose quota equals the profile's (default-625 ~
 * Tokyo at 625, raised-3000 ~ Oregon at 3,000). Streams must match: with a per-flow cap, -P 1 and
 * the study's -P 4 measure different things (the streams preset runs 1-16). The rest of the
 * method (duration, object size, chunk) may differ: `methodDifferences` says how, and a differing
 * method gets no percentage.
 */
export function matchBaselineSeries(baseline: Baseline, curve: CurveIdentity): BaselineSeries[] {
  return baseline.series.filter((series) => {
    if (series.probe.kind !== curve.probe) return false;
    const parameters: Record<string, unknown> = series.probe;
    const mustMatch = [probeNamed(series.probe.kind)?.plan?.streams?.parameter, "direction"];
    for (const name of mustMatch)
      if (name !== undefined && name in parameters && parameters[name] !== curve.parameters[name])
        return false;
    if (!isEmulated(curve.platform)) return series.region === curve.target;
    return (
      curve.quotaBitsPerSecond !== null &&
      Math.abs(series.quotaMegabitsPerSecond * 1e6 - curve.quotaBitsPerSecond) < 1e3
    );
  });
}

const GIB = 1_073_741_824;
const MIB = 1_048_576;

function bytesText(bytes: number): string {
  if (bytes % GIB === 0) return `${(bytes / GIB).toLocaleString("en-US")} GiB`;
  return `${(bytes / MIB).toLocaleString("en-US", { maximumFractionDigits: 2 })} MiB`;
}

/**
 * How a run's probe (its plan parameters, as the manifest keeps them) was run differently from
 * the study's series, one phrase each ("-t 8 s (the study: 10 s)"); empty when the method is the
 * same. The study's figure is a property of its method: a 10 s iperf3 average holds less of the
 * burst than an 8 s one, and a smaller object's whole seconds are not a 1 GiB object's. A
 * parameter the manifest does not hold counts as differing (nothing says it was the same).
 */
export function methodDifferences(series: BaselineSeries, parameters: Record<string, unknown>): string[] {
  const differences: string[] = [];
  const differ = (label: string, ours: unknown, theirs: number | string, unit = "") => {
    if (ours === theirs) return;
    const shown = ours === undefined ? `${label} not recorded` : `${label} ${String(ours)}${unit}`;
    differences.push(`${shown} (the study: ${theirs}${unit})`);
  };
  const probe = series.probe;
  if (probe.kind === "iperf3") {
    differ("direction", parameters.direction, probe.direction);
    differ("-P", parameters.parallel, probe.parallel);
    differ("-t", parameters.timeSeconds, probe.timeSeconds, " s");
    // a manifest without omitSeconds ran the plan's default: none omitted
    differ("-O", parameters.omitSeconds ?? 0, probe.omitSeconds, " s");
  } else {
    const objectBytes = typeof parameters.objectMib === "number" ? parameters.objectMib * MIB : undefined;
    if (objectBytes !== probe.objectBytes)
      differences.push(
        `${objectBytes === undefined ? "object size not recorded" : `object ${bytesText(objectBytes)}`} (the study: ${bytesText(probe.objectBytes)})`,
      );
    differ("concurrency", parameters.concurrency, probe.concurrency);
    differ("chunk", parameters.chunkMib, probe.chunkMib, " MiB");
  }
  return differences;
}
