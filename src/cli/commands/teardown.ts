import type { Command } from "commander";
import type { AwsClients } from "../../platforms/aws/aws-clients.js";
import { commandRegion, withAwsRegion, withProfile } from "./aws-options.js";
import { type AwsCommandDeps, openAwsSession } from "./aws-session.js";

/** `lambda-netbench teardown --region R`: removes everything deploy created, then verifies. */
export function registerTeardownCommand(program: Command, deps: AwsCommandDeps = {}): void {
  withAwsRegion(program.command("teardown"))
    .description(
      "delete the region's stack, bucket contents, versions and secrets; verify nothing tagged remains",
    )
    .option("--dry-run", "print the calls teardown would make, change nothing")
    .action(async (options: { region?: string; profile?: string; dryRun?: boolean }) => {
      const region = await commandRegion(options.region, options.profile);
      const { teardownRegion } = await import("../../platforms/aws/teardown.js");
      const session = await openAwsSession(options.dryRun === true, withProfile(deps, options.profile));
      const clients = session.clientsFor(region);
      try {
        const [{ destroyScheduleClients }, { disableSchedules, listScheduleNames }] = await Promise.all([
          import("../../scheduled-studies/schedule-clients.js"),
          import("../../scheduled-studies/schedule-admin.js"),
        ]);
        const scheduling = await session.schedulingFor(clients);
        const result = await teardownRegion(clients, {
          ...(deps.pacing ? { stackPoll: deps.pacing.stackPoll, verify: deps.pacing.teardownChecks } : {}),
          log: (line) => console.error(line),
          schedules: {
            disable: () => disableSchedules(scheduling),
            remaining: () => listScheduleNames(scheduling),
          },
        }).finally(() => destroyScheduleClients(scheduling));
        session.printPlan();
        if (result.dryRun) return;
        console.log(
          `teardown ${region}: stack ${result.stackExisted ? "deleted" : "was absent"}; ${result.deletedVersions} version(s), ${result.deletedAliases} alias(es), ${result.deletedObjectVersions} object version(s), ${result.abortedUploads} upload(s), ${result.deletedParameters.length} parameter(s) removed`,
        );
        if (result.terminatedInstances.length > 0)
          console.log(
            `terminated (AWS still lists them for a while): ${result.terminatedInstances.join(", ")}`,
          );
        const tagsVerified = !result.notVerified.some((note) => note.includes("tag:GetResources"));
        if (result.remaining.length > 0) {
          console.error(`still tagged lambda-netbench (the tagging API can lag):`);
          for (const arn of result.remaining) console.error(`  ${arn}`);
          process.exitCode = 1;
        } else if (tagsVerified)
          console.log("verified: nothing tagged lambda-netbench remains in this region");
        // a name whose look-up was denied is not verified gone (it is listed as not verified below)
        const unverifiable = (name: string) =>
          result.notVerified.some((note) =>
            name.startsWith("log-group") ? note.includes("logs:") : note.includes("iam:"),
          );
        const verifiedNames = result.checkedByName.filter((name) => !unverifiable(name));
        if (result.remainingByName.length === 0 && verifiedNames.length > 0)
          console.log(`verified gone by name: ${verifiedNames.join(", ")}`);
        else if (result.remainingByName.length > 0) {
          console.error("still present (checked by name):");
          for (const name of result.remainingByName) console.error(`  ${name}`);
          process.exitCode = 1;
        }
        const schedulesVerified = !result.notVerified.some((note) =>
          note.startsWith("not verified: no schedule"),
        );
        if (result.remainingSchedules.length === 0 && schedulesVerified)
          console.log(
            `verified: no schedule of lambda-netbench remains${result.disabledSchedules.length > 0 ? ` (disabled first: ${result.disabledSchedules.join(", ")})` : ""}`,
          );
        else if (result.remainingSchedules.length > 0) {
          console.error(`schedules still listed: ${result.remainingSchedules.join(", ")}`);
          process.exitCode = 1;
        }
        // denied look-ups: everything was deleted, only these checks could not be made
        for (const note of result.notVerified) console.log(note);
        console.log(await quotaNote(clients, region));
      } finally {
        session.release(clients);
      }
    });
}

/** Teardown leaves the quota as it is: say so, with the value in force when it can be read. */
async function quotaNote(clients: AwsClients, region: string): Promise<string> {
  const why =
    "a raised Lambda bandwidth quota stays raised (quotas are not resources; it costs nothing by itself)";
  try {
    const { getQuotaReport } = await import("../../platforms/aws/quota.js");
    const quota = await getQuotaReport(clients.quotas, region);
    if (quota.valueMbps === null) return `note: ${why}`;
    return `note: the bandwidth quota in ${region} stays at ${quota.valueMbps} Mbit/s (AWS default ${quota.defaultMbps ?? "unknown"}): ${why}`;
  } catch {
    return `note: ${why}`;
  }
}
