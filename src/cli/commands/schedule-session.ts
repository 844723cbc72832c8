import { type Plan, usesIperf3Server } from "../../plan/plan-schema.js";
import { estimateAwsCost } from "../../runner/run-estimate.js";
import type { ScheduleClients } from "../../scheduled-studies/schedule-clients.js";
import { type AwsCommandDeps, openAwsSession } from "./aws-session.js";

/** The schedule commands' AWS session: the region checked, clients opened and released. */
export async function withClients(
  region: string | undefined,
  deps: AwsCommandDeps,
  work: (clients: ScheduleClients) => Promise<void>,
  dryRun = false,
): Promise<void> {
  const { resolveRegion } = await import("../../platforms/aws/default-region.js");
  const checked = resolveRegion(region, deps.profile);
  const { destroyScheduleClients } = await import("../../scheduled-studies/schedule-clients.js");
  const session = await openAwsSession(dryRun, deps);
  const base = session.clientsFor(checked);
  const clients = await session.schedulingFor(base);
  try {
    await work(clients);
    session.printPlan();
  } finally {
    destroyScheduleClients(clients);
    session.release(base);
  }
}

/** The Lambda side of one scheduled run: iperf3 cells are not invoked (no server between runs). */
export function scheduledLambdaCost(plan: Plan): ReturnType<typeof estimateAwsCost> {
  const probes = plan.probes.filter((probe) => !usesIperf3Server(probe));
  if (probes.length === 0) return { invocations: 0, gigabyteSeconds: 0, usd: 0 };
  return estimateAwsCost({ ...plan, probes });
}
