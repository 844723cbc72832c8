import { resolve } from "node:path";
import type { Command } from "commander";
import { commandRegion, withAwsRegion, withProfile } from "./aws-options.js";
import { type AwsCommandDeps, openAwsSession } from "./aws-session.js";

interface PullCliOptions {
  region?: string;
  profile?: string;
  since?: string;
  out: string;
}

/** `lambda-netbench runs pull --region R [--since DATE]`: scheduled runs into runs/. */
export function registerRunsCommand(program: Command, deps: AwsCommandDeps = {}): void {
  const runs = program.command("runs").description("runs made in your account (scheduled studies)");
  withAwsRegion(runs.command("pull"))
    .description("download the region's scheduled runs into run directories (manifest.json + results.jsonl)")
    .option("--since <date>", "only runs started at or after this date (ISO 8601, e.g. 2026-11-01)")
    .option("--out <dir>", "parent directory of the run directories", "runs")
    .action(async (options: PullCliOptions) => {
      process.exitCode = await pullCommand(options, deps);
    });
}

export async function pullCommand(options: PullCliOptions, deps: AwsCommandDeps): Promise<number> {
  const region = await commandRegion(options.region, options.profile);
  let since: Date | undefined;
  if (options.since !== undefined) {
    since = new Date(options.since);
    if (!/^\d{4}-\d{2}-\d{2}/.test(options.since) || Number.isNaN(since.getTime())) {
      console.error(
        `lambda-netbench runs pull: --since: "${options.since}" is not a date (allowed: ISO 8601, e.g. 2026-11-01 or 2026-11-01T06:00:00Z)`,
      );
      return 2;
    }
  }
  const [{ describeStack }, { pullRuns }] = await Promise.all([
    import("../../platforms/aws/stack-state.js"),
    import("../../scheduled-studies/pull-runs.js"),
  ]);
  const session = await openAwsSession(false, withProfile(deps, options.profile));
  const clients = session.clientsFor(region);
  try {
    const stack = await describeStack(clients.cloudFormation);
    const bucket = stack?.outputs.BucketName;
    if (!bucket) {
      console.error(`lambda-netbench runs pull: no lambda-netbench stack with a bucket in ${region}`);
      return 1;
    }
    const outDir = resolve(options.out);
    const result = await pullRuns({
      s3: clients.s3,
      bucket,
      outDir,
      ...(since ? { since } : {}),
      log: (line) => console.error(line),
    });
    for (const run of result.pulled)
      console.log(
        `${resolve(outDir, run.runId)}  ${run.records} record(s)${run.complete ? "" : "  (incomplete)"}`,
      );
    console.log(
      `${result.pulled.length} run(s) pulled, ${result.upToDate.length} already complete locally${since ? ` (since ${since.toISOString()})` : ""}`,
    );
    return 0;
  } finally {
    session.release(clients);
  }
}
