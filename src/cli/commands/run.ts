import { relative } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { plannedInvocations } from "../../plan/cell.js";
import { PlanError } from "../../plan/expand-plan.js";
import { loadPlan } from "../../plan/load-plan.js";
import type { Plan } from "../../plan/plan-schema.js";
import { targetName, targetsOn } from "../../plan/platforms.js";
import { presetNames } from "../../plan/presets.js";
import { outputWidth, wrapEach } from "../../report/text-layout.js";
import { loadReportModel, writeRunReport } from "../../report/write-report.js";
import { ceilingOfRecord } from "../../results/ceiling.js";
import type { RunManifest } from "../../results/manifest.js";
import { readManifest } from "../../results/run-directory.js";
import { planBurstWarnings } from "../../runner/burst-reach.js";
import { RunPausedError } from "../../runner/platform.js";
import { estimateAwsCost } from "../../runner/run-estimate.js";
import { type OpenPlatform, runPlan } from "../../runner/run-plan.js";
import { labRefusal } from "../lab-preflight.js";
import { openPlatform as defaultOpenPlatform, type PlatformAccess } from "../open-platform.js";
import { Progress, printRunSummary } from "../progress.js";
import { withProfile } from "./aws-options.js";
import type { AwsCommandDeps } from "./aws-session.js";
import { burstWarningLines, checkBeforeRun } from "./run-preflight.js";

export interface RunCommandOptions {
  config?: string;
  preset?: string;
  regions?: string;
  region?: string;
  profile?: string;
  out: string;
  yes?: boolean;
  resume?: string;
  unshaped?: boolean;
  dryRun?: boolean;
  /** Print the summary as JSON on stdout (everything else goes to stderr). */
  json?: boolean;
  /** The iperf3 server's USD per hour for the estimate, when neither the table nor AWS gives it. */
  serverUsdPerHour?: string;
}

export interface RunCommandDeps {
  /** Opens a target; `access` carries what the command took from outside for it (--profile). */
  openPlatform: (...args: [...Parameters<OpenPlatform>, access: PlatformAccess]) => ReturnType<OpenPlatform>;
  /**
   * Refuses lab targets this host cannot run shaped, before the run directory exists (the
   * default deps use the real check; tests that bring their own platform leave it out).
   */
  labRefusal?: typeof labRefusal;
  /** The AWS preflight's transport and credentials (default: the SDK's own). */
  aws?: AwsCommandDeps;
}

/** What a real `run` opens: the lab or the AWS account, with the lab's refusals checked first. */
export const defaultRunDeps: RunCommandDeps = { openPlatform: defaultOpenPlatform, labRefusal };

/**
 * `lambda-netbench run`: validate the plan (before anything runs), ask before spending money on
 * AWS, run it target by target with progress, then print the summary and write the report.
 * Ctrl-C once: finish the invocations in flight and stop; twice: abandon them. Either way
 * everything recorded stays, and `--resume DIR` completes the run.
 */
export function registerRunCommand(program: Command, deps: RunCommandDeps = defaultRunDeps): void {
  program
    .command("run")
    .description(
      "run a plan (default: the quick preset on the local lab) and write a run directory with its report",
    )
    .option("--config <file>", "plan file (YAML or JSON; schema: schema/plan.schema.json)")
    .option("--preset <name>", `built-in plan: ${presetNames.join(", ")}`)
    .option("--regions <list>", "run on AWS in these regions (comma-separated) instead of the plan's targets")
    .option("--region <region>", "run on AWS in this region instead of the plan's targets (as --regions R)")
    .option("--profile <name>", "AWS profile of ~/.aws/config and ~/.aws/credentials (default: AWS_PROFILE)")
    .option("--out <dir>", "parent folder of run directories", "runs")
    .option("--yes", "do not ask before invoking on AWS (costs money)")
    .option("--resume <runDir>", "complete an interrupted run")
    .option(
      "--unshaped",
      "run lab targets on loopback without shaping (no root needed; results labelled unshaped)",
    )
    .option(
      "--dry-run",
      "print the plan, its invocations and cost, and check the AWS account (preflight); invoke and create nothing",
    )
    .option("--json", "print the summary (verdict and cells) as JSON on stdout; progress stays on stderr")
    .option(
      "--server-usd-per-hour <usd>",
      "the iperf3 server's price for the estimate, when neither the price table nor AWS's Price List API gives it",
    )
    .action(async (options: RunCommandOptions) => {
      process.exitCode = await runCommand(options, deps);
    });
}

/** `--server-usd-per-hour`, checked before anything runs (the same bounds as deploy's). */
async function serverPriceOption(value: string | undefined): Promise<number | undefined> {
  if (value === undefined) return undefined;
  const { validateNumberInRange } = await import("../../platforms/aws/aws-input.js");
  return validateNumberInRange(value, "server-usd-per-hour", 0, 1000);
}

function regionList(regions: string): string[] {
  return regions
    .split(",")
    .map((r) => r.trim())
    .filter((r) => r !== "");
}

/**
 * What `run` was asked for, resolved once before anything else: a new run of a loaded plan, or
 * the rest of a recorded run (its manifest read once, here). A refusal is an input error.
 */
type RunRequest =
  | { kind: "new"; plan: Plan; source: RunManifest["source"] }
  | { kind: "resume"; dir: string; manifest: RunManifest; plan: Plan };

async function resolveRunRequest(options: RunCommandOptions): Promise<RunRequest | { refusal: string }> {
  if (options.resume) {
    if (options.config || options.preset || options.regions || options.region)
      return { refusal: "--resume continues a run with its own plan; drop --config/--preset/--regions" };
    try {
      const manifest = await readManifest(options.resume);
      return { kind: "resume", dir: options.resume, manifest, plan: manifest.plan };
    } catch (error) {
      return { refusal: `--resume ${options.resume}: ${(error as Error).message}` };
    }
  }
  const regions = options.regions === undefined ? undefined : regionList(options.regions);
  try {
    const plan = await loadPlan({
      ...(options.config ? { configPath: options.config } : {}),
      ...(options.preset ? { preset: options.preset } : {}),
      ...(regions ? { regions } : {}),
    });
    const source = {
      preset: options.config ? null : (options.preset ?? "quick"),
      configPath: options.config ?? null,
      regions: regions ?? null,
    };
    return { kind: "new", plan, source };
  } catch (error) {
    if (error instanceof PlanError) return { refusal: error.message };
    throw error;
  }
}

export async function runCommand(options: RunCommandOptions, deps: RunCommandDeps): Promise<number> {
  if (options.region !== undefined && options.regions !== undefined) {
    console.error("lambda-netbench run: give --region or --regions, not both");
    return 2;
  }
  if (options.region !== undefined) options = { ...options, regions: options.region };
  // an unknown region is refused before anything else (exit 2), as on every AWS command
  if (options.regions !== undefined && !options.resume) {
    const { validateRegion } = await import("../../platforms/aws/aws-input.js");
    for (const region of regionList(options.regions))
      validateRegion(region, options.region !== undefined ? "region" : "regions");
  }
  const request = await resolveRunRequest(options);
  if ("refusal" in request) {
    console.error(`lambda-netbench run: ${request.refusal}`);
    return 2;
  }
  const { plan } = request;
  const aws = withProfile(deps.aws ?? {}, options.profile);
  const serverUsdPerHour = await serverPriceOption(options.serverUsdPerHour);
  const check = (dryRun: boolean) =>
    checkBeforeRun(plan, { dryRun, aws, ...(serverUsdPerHour !== undefined ? { serverUsdPerHour } : {}) });
  if (options.dryRun) return (await check(true)).ok ? 0 : 1;
  const refusal = deps.labRefusal ? await deps.labRefusal(plan, options.unshaped === true) : null;
  if (refusal) {
    console.error(`lambda-netbench run: ${refusal}`);
    return 2;
  }
  // an AWS plan's preflight says it with the plan; a lab run says it before it starts (unshaped: no burst)
  if (request.kind === "new" && targetsOn(plan.targets, "aws").length === 0 && options.unshaped !== true)
    for (const line of wrapEach(burstWarningLines(planBurstWarnings(plan)), outputWidth()))
      console.error(line);
  if (targetsOn(plan.targets, "aws").length > 0) {
    // a resumed AWS run gets the same preflight (credentials may have been renewed, the server extended)
    if (!(await check(false)).ok) {
      console.error(
        "lambda-netbench run: the preflight failed (above); no cell was measured and nothing was published",
      );
      return 1;
    }
    if (request.kind === "new" && !(await confirmAws(plan, options.yes === true))) return 1;
  }

  const stop = new AbortController();
  const abandon = new AbortController();
  let progress: Progress | undefined;
  let runDir = options.resume ?? "";
  let runManifest: RunManifest | null = null;
  const onSigint = () => {
    if (!stop.signal.aborted) {
      stop.abort();
      progress?.message("Stopping: finishing the invocations in flight (Ctrl-C again to abandon them)...");
    } else if (!abandon.signal.aborted) {
      abandon.abort();
      progress?.message("Abandoning the invocations in flight (they will run again on resume)...");
    }
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  try {
    const result = await runPlan({
      ...(request.kind === "new"
        ? { start: { plan, parentDir: options.out, source: request.source } }
        : { resume: { dir: request.dir, manifest: request.manifest } }),
      openPlatform: (target, context) => deps.openPlatform(target, context, { awsProfile: options.profile }),
      unshaped: options.unshaped === true,
      stop: stop.signal,
      abandon: abandon.signal,
      onStart: ({ dir, totalTasks, remainingTasks, manifest }) => {
        runDir = dir;
        // the runner fills in each target's facts as it opens it: the ceilings come from there
        runManifest = manifest;
        progress = new Progress(totalTasks, totalTasks - remainingTasks);
        const targets = manifest.plan.targets.map(targetName).join(", ");
        progress.message(
          `${request.kind === "resume" ? "Resuming" : "Running"} ${manifest.plan.name}: ${manifest.cells.length} cells on ${targets}, ` +
            `${remainingTasks} of ${totalTasks} invocations to go. Results: ${dir}`,
        );
      },
      onEvent: (event) => {
        if (event.type === "recorded")
          progress?.recorded(event.record, runManifest ? ceilingOfRecord(runManifest, event.record) : null);
        else if (event.type === "phase") progress?.message(event.message);
        else if (event.type === "target")
          progress?.message(`Target ${event.target}: ${event.tasks} invocations`);
      },
    });
    progress?.finish();
    if (result.remaining > 0) {
      console.error(
        `Interrupted: ${result.remaining} planned invocations are not recorded yet (everything finished is saved in ${result.dir}/results.jsonl).\n` +
          `Resume with: lambda-netbench run --resume ${result.dir}`,
      );
      return 130;
    }
    const model = await loadReportModel(result.dir);
    printRunSummary(model, options.json === true);
    const written = await writeRunReport(model, result.dir);
    (options.json ? console.error : console.log)(
      `\nRun directory: ${result.dir}\nReport: ${written.map((file) => relative(result.dir, file)).join(", ")}`,
    );
    if (result.failed > 0) {
      console.error(failedAdvice(result.failed, result.manifest, result.dir));
      return 1;
    }
    return 0;
  } catch (error) {
    progress?.finish();
    console.error(`lambda-netbench run: ${error instanceof Error ? error.message : String(error)}`);
    if (runDir) console.error(resumeAdvice(runDir, error));
    return 1;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}

/** What the user does next: a paused run (expired login, server TTL) keeps every record. */
function resumeAdvice(runDir: string, error: unknown): string {
  const resume = `lambda-netbench run --resume ${runDir}`;
  if (error instanceof RunPausedError)
    return `Paused: every invocation recorded so far is kept in ${runDir}/results.jsonl; the one that could not run was not recorded and runs on resume.\nThen resume with: ${resume}`;
  return `What was recorded is in ${runDir}; once fixed, resume with: ${resume}`;
}

/**
 * A complete run with failed invocations exits non-zero (scripts and CI read the exit code).
 * Failures are results and stay recorded; a failure the platform caused (an expired login, a
 * lab taken away) pauses the run instead, so what is here failed in the function itself.
 */
function failedAdvice(failed: number, manifest: RunManifest, dir: string): string {
  const planned = manifest.cells.reduce((sum, cell) => sum + plannedInvocations(cell), 0);
  const { preset, configPath, regions } = manifest.source;
  const again = [
    "lambda-netbench run",
    configPath ? `--config ${configPath}` : `--preset ${preset ?? "quick"}`,
    ...(regions ? [`--regions ${regions.join(",")}`] : []),
  ].join(" ");
  return (
    `Failed: ${failed} of ${planned} invocations failed; they are recorded (the report lists why, ${dir}/results.jsonl has each error).\n` +
    `Nothing is left to resume: once the cause is fixed, measure again with: ${again}`
  );
}

async function confirmAws(
  plan: NonNullable<Parameters<typeof estimateAwsCost>[0]>,
  yes: boolean,
): Promise<boolean> {
  const estimate = estimateAwsCost(plan);
  const summary =
    `This plan invokes Lambda ${estimate.invocations} times in ${plan.targets.map(targetName).join(", ")} ` +
    `(about ${Math.round(estimate.gigabyteSeconds)} GB-seconds, roughly $${estimate.usd.toFixed(2)} at list price, plus S3 requests and the iperf3 server's EC2 time).`;
  if (yes) {
    console.error(summary);
    return true;
  }
  if (!process.stdin.isTTY) {
    console.error(
      `${summary}\nlambda-netbench run: pass --yes to run on AWS without a terminal to confirm in.`,
    );
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${summary}\nProceed? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
