import type { Command } from "commander";
import {
  compareWithBaseline,
  renderBaselineCompact,
  renderBaselineMarkdown,
  renderBaselineText,
} from "../../report/baseline-comparison.js";
import {
  compareRuns,
  renderComparisonCompact,
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../../report/compare-runs.js";
import { outputWidth } from "../../report/text-layout.js";
import { loadReportModel } from "../../report/write-report.js";
import { baselineNames } from "../../results/baseline.js";

/**
 * `lambda-netbench compare RUN_A RUN_B`: two runs side by side with the deltas of their sustained medians;
 * `compare RUN --baseline seed-2026`: one run beside a published study's figures.
 */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(
      "compare two runs side by side (e.g. before/after a quota increase, region vs region), or one run with a published baseline",
    )
    .argument("<runA>", "first run directory (the baseline run)")
    .argument("[runB]", "second run directory (omit with --baseline)")
    .option("--format <format>", "text or md", "text")
    .option("--json", "print the comparison as JSON (rates in bit/s, with how far to trust each delta)")
    .option("--wide", "text: every column, one row per cell (wider than a terminal)")
    .option("--baseline <name>", `a published dataset to compare RUN_A with (${baselineNames.join(", ")})`)
    .action(
      async (
        runA: string,
        runB: string | undefined,
        options: { format: string; baseline?: string; json?: boolean; wide?: boolean },
      ) => {
        const fail = (message: string) => {
          console.error(`lambda-netbench compare: ${message}`);
          process.exitCode = 2;
        };
        if (options.format !== "text" && options.format !== "md")
          return fail(`--format: unknown ${options.format} (allowed: text, md)`);
        if (options.baseline !== undefined) {
          if (!baselineNames.includes(options.baseline))
            return fail(
              `--baseline: unknown baseline "${options.baseline}" (allowed: ${baselineNames.join(", ")})`,
            );
          if (runB !== undefined) return fail("--baseline compares one run: give RUN_A only");
          const comparison = compareWithBaseline(await loadReportModel(runA, options.baseline));
          if (!comparison) return fail("no baseline comparison");
          process.stdout.write(
            options.json
              ? `${JSON.stringify(comparison, null, 2)}\n`
              : options.format === "md"
                ? renderBaselineMarkdown(comparison)
                : options.wide
                  ? renderBaselineText(comparison)
                  : `${renderBaselineCompact(comparison, outputWidth()).join("\n")}\n`,
          );
          return;
        }
        if (runB === undefined) return fail(`RUN_B: missing (or use --baseline ${baselineNames.join("|")})`);
        const comparison = compareRuns(await loadReportModel(runA), await loadReportModel(runB));
        process.stdout.write(
          options.json
            ? renderComparisonJson(comparison)
            : options.format === "md"
              ? renderComparisonMarkdown(comparison)
              : options.wide
                ? renderComparisonText(comparison)
                : renderComparisonCompact(comparison, outputWidth()),
        );
      },
    );
}
