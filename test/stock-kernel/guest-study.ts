import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cliStudy } from "./guest-cli-study.js";
import { log } from "./guest-observation.js";
import { flowCapChecks, platformChecks } from "./guest-platform-checks.js";
import { type GuestReport, RESULT_MARKER } from "./guest-report.js";

async function main(): Promise<void> {
  const repo = resolve(process.cwd());
  const report: GuestReport = {
    kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(),
    cgroupMounts: readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .filter((line) => / cgroup2? /.test(line)),
    labUp: null,
    run: null,
    labDown: null,
    manifestPlatform: null,
    records: [],
    cpuMaxSeen: {},
    qdiscsSeen: {},
    leftAfterLabDown: null,
    labLogs: {},
    platformChecks: {
      facts: null,
      infoCpuQuotaCores: null,
      infoMemoryLimitMb: null,
      cpuBurnCores: null,
      iperf3: [],
      curl: [],
      ping: null,
      oom: null,
      afterOom: null,
    },
    flowCap: null,
    errors: [],
  };
  log(`kernel ${report.kernel}, repository ${repo}`);
  const failed = (name: string, error: unknown) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`${name} failed: ${text}`);
    report.errors.push(`${name}: ${text.split("\n").slice(0, 6).join("\n")}`);
  };
  try {
    await cliStudy(repo, report, (labName) =>
      platformChecks(repo, report, labName).catch((error) => failed("platform checks", error)),
    );
  } catch (error) {
    failed("CLI study", error);
  }
  await flowCapChecks(repo, report).catch((error) => failed("flow cap", error));
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(report)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  await main();
}
