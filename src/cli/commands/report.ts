import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { reportFormatNames, reportFormats } from "../../report/formats.js";
import { defaultBaselineName } from "../../report/report-model.js";
import { renderSummaryJson } from "../../report/summary-json.js";
import { renderTerminal } from "../../report/terminal-format.js";
import { outputWidth } from "../../report/text-layout.js";
import { loadReportModel, writeReport, writeRunReport } from "../../report/write-report.js";
import { baselineNames } from "../../results/baseline.js";

interface ReportOptions {
  format?: string[];
  out?: string;
  stdout?: boolean;
  /** A published baseline to show beside the run, or "none". */
  baseline?: string;
  history?: string[];
  /** Text: the full table, one row per cell, instead of the summary fitted to the terminal. */
  wide?: boolean;
  /** Print the summary (verdict and cells) as JSON. */
  json?: boolean;
  /** Writes the run's bucket fits as a lab profile (a runnable plan) named this. */
  saveProfile?: string;
}

/**
 * `lambda-netbench report RUN_DIR [--format ...]`: the report of a run, built from its
 * manifest and results.jsonl only (an interrupted run reports what it has). Without --format it
 * prints what `run` prints and writes the files `run` writes.
 */
export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description("print the summary of a run and write its report files")
    .argument("[runDir]", "run directory (runs/<date>-<name>)")
    .option(
      "--format <formats...>",
      `formats to write: ${reportFormatNames.map((n) => `${n} (${reportFormats[n]?.description})`).join(", ")}`,
    )
    .option("--out <dir>", "where to write the files (default: the run directory)")
    .option("--stdout", "print a text format (md, csv, json, text) instead of writing a file")
    .option(
      "--baseline <name>",
      `published dataset shown beside the run in md, html, json and the charts: ${baselineNames.join(", ")} or none`,
      defaultBaselineName,
    )
    .option("--wide", "text: the full table, one row per cell and every column (as in report.md)")
    .option("--json", "print the summary (verdict and cells, bit/s) as JSON, as `run --json` does")
    .option(
      "--save-profile <name>",
      "write the run's bucket fits as a lab profile, in a plan: NAME.plan.json (in --out, default the run directory)",
    )
    .option("--history <dirs...>", "sustained and burst rates over these runs (run directories or runs/)")
    .action(async (runDir: string | undefined, options: ReportOptions) => {
      if (options.history) {
        const { historyCommand } = await import("./report-history.js");
        process.exitCode = await historyCommand([...(runDir ? [runDir] : []), ...options.history], options);
        return;
      }
      if (!runDir) {
        console.error("lambda-netbench report: give a run directory, or --history DIR...");
        process.exitCode = 2;
        return;
      }
      process.exitCode = await reportCommand(runDir, options);
    });
}

export async function reportCommand(runDir: string, options: ReportOptions): Promise<number> {
  const formats = (options.format ?? []).flatMap((f) => f.split(",")).filter((f) => f !== "");
  const unknown = formats.filter((f) => !reportFormats[f]);
  if (unknown.length > 0) {
    console.error(
      `lambda-netbench report: --format: unknown ${unknown.join(", ")} (allowed: ${reportFormatNames.join(", ")})`,
    );
    return 2;
  }
  const baseline = options.baseline ?? defaultBaselineName;
  if (baseline !== "none" && !baselineNames.includes(baseline)) {
    console.error(
      `lambda-netbench report: --baseline: unknown baseline "${baseline}" (allowed: ${[...baselineNames, "none"].join(", ")})`,
    );
    return 2;
  }
  const model = await loadReportModel(runDir, baseline === "none" ? null : baseline);
  if (options.saveProfile !== undefined) {
    const { saveRunProfile } = await import("./probe-bucket.js");
    return saveRunProfile(model.analysis.buckets, options.saveProfile, resolve(options.out ?? runDir));
  }
  if (options.json) {
    process.stdout.write(renderSummaryJson(model));
    return 0;
  }
  if (
    formats.length === 0 ||
    (options.stdout !== true && formats.length === 1 && formats[0] === "text" && options.wide)
  ) {
    process.stdout.write(renderTerminal(model, { width: outputWidth(), wide: options.wide === true }));
    if (formats.length > 0) return 0;
    // the files `run` wrote, rebuilt from the records (an older release's report, an interrupted run)
    const outDir = resolve(options.out ?? runDir);
    const written = await writeRunReport(model, outDir);
    console.log(`\nReport: ${written.map((file) => relative(outDir, file)).join(", ")}`);
    return 0;
  }
  if (options.stdout) {
    for (const name of formats) {
      if (name === "png" || name === "svg" || name === "html") {
        console.error(`lambda-netbench report: --stdout prints text formats only, not ${name}`);
        return 2;
      }
      for (const file of await (reportFormats[name] as (typeof reportFormats)[string]).render(model))
        process.stdout.write(file.content);
    }
    return 0;
  }
  const written = await writeReport(model, formats, resolve(options.out ?? runDir));
  for (const path of written) console.log(path);
  return 0;
}
