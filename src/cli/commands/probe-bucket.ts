import type { Command } from "commander";
import { handleEvent } from "../../agent/handler.js";
import type { BucketMeasurement } from "../../probes/bucket/measurement.js";
import { DEFAULT_BUCKET_INTERVAL_MS, DEFAULT_GAPS_SECONDS } from "../../probes/bucket/options.js";
import { modelLines } from "../../report/bucket-section.js";
import { outputWidth } from "../../report/text-layout.js";
import type { BucketCell, BucketModel } from "../../results/bucket-cells.js";
import { summarizeBucketFits } from "../../results/bucket-cells.js";
import { type BucketFit, fitBucket } from "../../results/bucket-fit.js";
import { bucketProfile } from "../../results/bucket-profile.js";
import { buildIperf3Event, withIperf3AuthOptions } from "./probe-iperf3.js";
import { checkProfileName, writeProfilePlan } from "./save-profile.js";

interface BucketCliOptions {
  host: string;
  port: string;
  direction: string;
  parallel: string;
  intervalMs: string;
  time: string;
  gaps: string;
  refillTime: string;
  rest?: string;
  repetitions: string;
  memoryMb: string;
  saveProfile?: string;
  out: string;
  username?: string;
  passwordEnv?: string;
  rsaPublicKeyPath?: string;
  padding: string;
  json?: boolean;
}

const DIRECTIONS = { both: ["download", "upload"], download: ["download"], upload: ["upload"] } as const;

/** `lambda-netbench probe bucket`: this environment's token bucket, per direction, fitted over repetitions. */
export function registerBucketProbeCommand(probe: Command): void {
  withIperf3AuthOptions(
    probe
      .command("bucket")
      .description(
        "measure this environment's token bucket (peak, bucket size, sustained rate, refill) against an iperf3 server",
      )
      .requiredOption("--host <host>", "iperf3 server host name or address")
      .option("--port <port>", "server port", "5201")
      .option("--direction <direction>", "upload, download or both", "both")
      .option("--parallel <n>", "streams of each transfer", "8")
      .option("--interval-ms <ms>", "sample interval (10-100 ms)", `${DEFAULT_BUCKET_INTERVAL_MS}`)
      .option("--time <seconds>", "the long transfer that drains the bucket", "5")
      .option(
        "--gaps <seconds,...>",
        "idle gaps, each followed by a short transfer",
        DEFAULT_GAPS_SECONDS.join(","),
      )
      .option("--refill-time <seconds>", "each short transfer after a gap", "2")
      .option("--rest <seconds>", "idle time before the long transfer (default: the longest gap)")
      .option("--repetitions <n>", "fingerprints per direction (the spread is over them)", "3")
      .option(
        "--memory-mb <mb>",
        "memory size the saved profile's rates belong to",
        process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? "1024",
      )
      .option("--save-profile <name>", "write the fit as a lab profile, in a runnable plan: NAME.plan.json")
      .option("--out <dir>", "where --save-profile writes NAME.plan.json", "."),
  )
    .option("--json", "print the fitted models (and every repetition's fit) as JSON")
    .action(async (options: BucketCliOptions) => {
      process.exitCode = await bucketCommand(options);
    });
}

async function bucketCommand(options: BucketCliOptions): Promise<number> {
  const directions = DIRECTIONS[options.direction as keyof typeof DIRECTIONS];
  const repetitions = Number(options.repetitions);
  const problem = !directions
    ? `--direction: "${options.direction}" is not allowed (allowed: upload, download, both)`
    : !(Number.isInteger(repetitions) && repetitions >= 1 && repetitions <= 100)
      ? `--repetitions: "${options.repetitions}" is not allowed (allowed: integers 1-100)`
      : options.saveProfile !== undefined
        ? checkProfileName(options.saveProfile)
        : null;
  if (problem || !directions) return fail(problem ?? "", 2);
  let auth: unknown;
  try {
    auth = (
      await buildIperf3Event(
        {
          ...options,
          time: "1",
          parallel: "1",
          omit: "0",
          length: "1",
          bytes: "0",
          connectTimeout: "5000",
          interval: "1",
        },
        process.env,
      )
    ).auth;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
  const models: BucketModel[] = [];
  const fits: BucketFit[] = [];
  for (const direction of directions) {
    const mine: BucketFit[] = [];
    for (let repetition = 1; repetition <= repetitions; repetition += 1) {
      const response = await handleEvent(bucketEvent(options, direction, auth));
      if (!response.ok)
        return fail(`bucket ${direction} failed (${response.error.kind}): ${response.error.message}`, 1);
      const fit = response.summary?.bucket ? fitBucket(response.summary.bucket) : null;
      if (!fit) return fail(`bucket ${direction}: ${unfittable(response.summary?.bucket)}`, 1);
      mine.push(fit);
      if (!options.json)
        console.error(
          modelLines(
            `${direction} ${repetition}/${repetitions}`,
            summarizeBucketFits([fit]) as BucketModel,
            outputWidth(process.stderr),
          ).join("\n"),
        );
    }
    fits.push(...mine);
    models.push(summarizeBucketFits(mine) as BucketModel);
  }
  if (options.json) console.log(JSON.stringify({ models, fits }, null, 2));
  else
    for (const model of models)
      console.log(modelLines(`${model.direction} (n=${model.n})`, model, outputWidth()).join("\n"));
  if (options.saveProfile === undefined) return 0;
  const memoryMb = Number(options.memoryMb);
  const profile = bucketProfile(
    options.saveProfile,
    models.map((model) => ({ memoryMb, model })),
    `iperf3 server ${options.host}:${options.port}`,
  );
  console.error(`profile written: ${await writeProfilePlan(profile, [memoryMb], options.out)}`);
  return 0;
}

/** Why a fingerprint gave no fit, with what its long transfer held, so a user can size --time. */
function unfittable(measurement: BucketMeasurement | undefined): string {
  const samples = measurement?.transfers[0]?.samples;
  if (!samples) return "the probe returned no long transfer to fit";
  const seconds = samples.durationSeconds.reduce((sum, s) => sum + s, 0);
  const bytes = samples.bytes.reduce((sum, b) => sum + b, 0);
  return `too few samples to fit: the long transfer gave ${samples.bytes.length} samples, ${bytes} bytes over ${seconds.toFixed(2)} s (the fit needs at least 4, with bytes moving in the second half; a longer --time?)`;
}

function bucketEvent(
  options: BucketCliOptions,
  direction: "upload" | "download",
  auth: unknown,
): Record<string, unknown> {
  return {
    probe: "bucket",
    host: options.host,
    port: Number(options.port),
    direction,
    parallel: Number(options.parallel),
    intervalMs: Number(options.intervalMs),
    transferSeconds: Number(options.time),
    gapsSeconds: options.gaps.split(",").map((gap) => Number(gap.trim())),
    refillTransferSeconds: Number(options.refillTime),
    ...(options.rest !== undefined ? { restSeconds: Number(options.rest) } : {}),
    ...(auth ? { auth } : {}),
  };
}

/** `report RUN_DIR --save-profile NAME`: the run's bucket cells as one profile. */
export async function saveRunProfile(
  cells: readonly BucketCell[],
  name: string,
  dir: string,
): Promise<number> {
  const problem = checkProfileName(name);
  if (problem) return fail(problem, 2);
  if (cells.length === 0)
    return fail("--save-profile: this run has no bucket cell with a fit (plan kind: bucket)", 2);
  const targets = [...new Set(cells.map((c) => c.targetKey))].join(", ");
  const profile = bucketProfile(
    name,
    cells.map((c) => ({ memoryMb: c.memoryMb, model: c.model })),
    targets,
  );
  console.log(
    await writeProfilePlan(
      profile,
      cells.map((c) => c.memoryMb),
      dir,
    ),
  );
  return 0;
}

function fail(message: string, code: number): number {
  console.error(`lambda-netbench: ${message}`);
  return code;
}
