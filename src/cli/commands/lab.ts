import type { Command } from "commander";
import { DEFAULT_ENVIRONMENTS, labDown, labStatus, labUp } from "../../platforms/local/lab.js";
import { DEFAULT_LAB_NAME } from "../../platforms/local/lab-names.js";
import { builtInProfileNames } from "../../platforms/local/profiles.js";

/** `lambda-netbench lab up|down|status`: the local lab's cloud side (servers, namespaces). */
export function registerLabCommand(program: Command): void {
  const lab = program
    .command("lab")
    .description("start, stop or inspect the local lab (needs root to shape)");
  lab
    .command("up")
    .description("start the lab's cloud namespace: iperf3 servers and an S3-compatible server over HTTPS")
    .option("--profile <name>", `lab profile (${builtInProfileNames().join(", ")})`, "default-625")
    .option("--environments <n>", "environments that may run at once", `${DEFAULT_ENVIRONMENTS}`)
    .option("--unshaped", "run everything on loopback without shaping, even as root")
    .action(async (options: { profile: string; environments: string; unshaped?: boolean }) => {
      const environments = Number(options.environments);
      const state = await labUp({
        profile: options.profile,
        environments,
        mode: options.unshaped ? "unshaped" : "auto",
      });
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
    });
  lab
    .command("down")
    .description("stop the lab and remove every namespace, qdisc, cgroup and process it created")
    .action(async () => {
      const removed = await labDown(DEFAULT_LAB_NAME);
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
      console.log(`  in use by: ${state.user ? `pid ${state.user.pid}` : "nobody"}`);
      for (const problem of status.problems) console.log(`  problem: ${problem}`);
      if (!status.up) process.exitCode = 1;
    });
}
