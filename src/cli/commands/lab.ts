import { type Command, Option } from "commander";
import { PlanError } from "../../plan/expand-plan.js";
import { builtInProfileNames, type LabProfile } from "../../plan/lab-profile.js";
import { loadPlan } from "../../plan/load-plan.js";
import { DEFAULT_ENVIRONMENTS, labDown, labStatus, labUp } from "../../platforms/local/lab.js";
import { describeHolder } from "../../platforms/local/lab-holder.js";
import { DEFAULT_LAB_NAME } from "../../platforms/local/lab-names.js";
import { LabRefusal } from "../../platforms/local/lab-refusal.js";

interface LabUpCommandOptions {
  labProfile: string;
  /** The old spelling of --lab-profile (--profile now names an AWS profile everywhere). */
  profile?: string;
  config?: string;
  environments: string;
  unshaped?: boolean;
  iperf3Server: string;
}

/**
 * `lab up`: refuses (exit 2) a bad option, an unknown profile or a plan file that does not
 * load, and, without --unshaped, a host that cannot shape (not root, a missing kernel piece),
 * before anything starts.
 */
async function labUpCommand(options: LabUpCommandOptions): Promise<number> {
  let customProfiles: LabProfile[] = [];
  if (options.config) {
    try {
      customProfiles = (await loadPlan({ configPath: options.config })).profiles ?? [];
    } catch (error) {
      if (!(error instanceof PlanError)) throw error;
      console.error(`lambda-netbench lab up: --config ${options.config}: ${error.message}`);
      return 2;
    }
  }
  if (options.profile !== undefined)
    console.error(
      "lambda-netbench lab up: --profile is now --lab-profile (--profile names an AWS profile on the AWS commands); using it as --lab-profile",
    );
  let state: Awaited<ReturnType<typeof labUp>>;
  try {
    state = await labUp({
      profile: options.profile ?? options.labProfile,
      customProfiles,
      environments: Number(options.environments),
      mode: options.unshaped ? "unshaped" : "shaped",
      iperf3Server: options.iperf3Server as "ours" | "stock",
    });
  } catch (error) {
    if (!(error instanceof LabRefusal)) throw error;
    console.error(`lambda-netbench lab up: ${error.message}`);
    return 2;
  }
  if (state.mode === "unshaped") {
    console.error(
      `lambda-netbench: lab is UNSHAPED (${state.unshapedReason}); every result will be labelled "unshaped"`,
    );
  }
  console.log(`lab ${state.labName} up (${state.mode}, profile ${state.profile})`);
  console.log(
    `  iperf3: ${state.iperf3.host} ports ${state.iperf3.ports.join(",")} (${state.iperf3.server})`,
  );
  console.log(`  s3:     ${state.s3.endpoint}/${state.s3.bucket} (CA ${state.s3.caFile})`);
  console.log(`  state:  ${state.dir}/state.json`);
  return 0;
}

/** `lambda-netbench lab up|down|status`: the local lab's cloud side (servers, namespaces). */
export function registerLabCommand(program: Command): void {
  const lab = program
    .command("lab")
    .description("start, stop or inspect the local lab (needs root to shape)");
  lab
    .command("up")
    .description("start the lab's cloud namespace: iperf3 servers and an S3-compatible server over HTTPS")
    .option(
      "--lab-profile <name>",
      `lab profile (${builtInProfileNames().join(", ")}, or one of --config's profiles)`,
      "default-625",
    )
    .addOption(new Option("--profile <name>", "old spelling of --lab-profile").hideHelp())
    .option("--config <file>", "plan file whose `profiles:` --lab-profile may name")
    .option("--environments <n>", "environments that may run at once", `${DEFAULT_ENVIRONMENTS}`)
    .option("--unshaped", "run everything on loopback without shaping (no root needed; results labelled)")
    .option("--iperf3-server <kind>", "iperf3 server in the cloud namespace: ours or stock", "ours")
    .action(async (options: LabUpCommandOptions) => {
      process.exitCode = await labUpCommand(options);
    });
  lab
    .command("down")
    .description("stop the lab and remove every namespace, qdisc, cgroup and process it created")
    .option("--force", "take the lab down even while a run is using it (that run pauses; resume it later)")
    .action(async (options: { force?: boolean }) => {
      let removed: string[];
      try {
        removed = await labDown(DEFAULT_LAB_NAME, { force: options.force === true });
      } catch (error) {
        if (!(error instanceof LabRefusal)) throw error;
        console.error(`lambda-netbench lab down: ${error.message}`);
        process.exitCode = 2;
        return;
      }
      console.log(
        removed.length > 0 ? `removed:\n  ${removed.join("\n  ")}` : "lab was not up; nothing to remove",
      );
    });
  lab
    .command("status")
    .description("show whether the lab is up, its servers and environments")
    .option("--json", "print the status as JSON")
    .action(async (options: { json?: boolean }) => {
      const status = await labStatus(DEFAULT_LAB_NAME);
      if (options.json) {
        console.log(JSON.stringify(status, null, 2));
        return;
      }
      if (!status.state) {
        console.log("lab is down");
        return;
      }
      const state = status.state;
      console.log(
        `lab ${state.labName}: ${status.up ? "up" : "DEGRADED"} (${state.mode}, profile ${state.profile}, since ${state.createdAt})`,
      );
      if (state.unshapedReason) console.log(`  unshaped: ${state.unshapedReason}`);
      for (const p of status.processes)
        console.log(`  ${p.running ? "running" : "DEAD   "} ${p.role} (pid ${p.pid})`);
      console.log(`  namespaces: ${status.namespaces.join(", ") || "(none)"}`);
      if (state.hostLink)
        console.log(
          `  host link: ${state.hostLink.megabitsPerSecond} Mbit/s each way, shared by all environments`,
        );
      console.log(`  in use by: ${state.user ? describeHolder(state.user) : "nobody"}`);
      for (const problem of status.problems) console.log(`  problem: ${problem}`);
      if (!status.up) process.exitCode = 1;
    });
}
