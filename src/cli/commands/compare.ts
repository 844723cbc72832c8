import type { Command } from "commander";
import { compareRuns, renderComparisonMarkdown, renderComparisonText } from "../../report/compare-runs.js";
import { loadReportModel } from "../../report/write-report.js";

/** `lambda-netbench compare RUN_A RUN_B`: the two runs side by side with the deltas of their medians. */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description("compare two runs side by side (e.g. before/after a quota increase, region vs region)")
    .argument("<runA>", "first run directory (the baseline)")
    .argument("<runB>", "second run directory")
    .option("--format <format>", "text or md", "text")
    .action(async (runA: string, runB: string, options: { format: string }) => {
      if (options.format !== "text" && options.format !== "md") {
        console.error(`lambda-netbench compare: --format: unknown ${options.format} (allowed: text, md)`);
        process.exitCode = 2;
        return;
      }
      const comparison = compareRuns(await loadReportModel(runA), await loadReportModel(runB));
      process.stdout.write(
        options.format === "md" ? renderComparisonMarkdown(comparison) : renderComparisonText(comparison),
      );
    });
}
