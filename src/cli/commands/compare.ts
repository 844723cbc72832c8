import type { Command } from "commander";
import {
  compareWithBaseline,
  renderBaselineMarkdown,
  renderBaselineText,
} from "../../report/baseline-comparison.js";
import { compareRuns, renderComparisonMarkdown, renderComparisonText } from "../../report/compare-runs.js";
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
    .option("--baseline <name>", `a published dataset to compare RUN_A with (${baselineNames.join(", ")})`)
    .action(
      async (runA: string, runB: string | undefined, options: { format: string; baseline?: string }) => {
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
            options.format === "md" ? renderBaselineMarkdown(comparison) : renderBaselineText(comparison),
          );
          return;
        }
        if (runB === undefined) return fail(`RUN_B: missing (or use --baseline ${baselineNames.join("|")})`);
        const comparison = compareRuns(await loadReportModel(runA), await loadReportModel(runB));
        process.stdout.write(
          options.format === "md" ? renderComparisonMarkdown(comparison) : renderComparisonText(comparison),
        );
      },
    );
}
