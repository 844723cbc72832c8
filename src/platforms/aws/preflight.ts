import { wrap } from "../../report/text-layout.js";
import type { AwsClients } from "./aws-clients.js";
import { credentialChain, missingCredentialsHelp } from "./credentials.js";
import { fleetCheckNames } from "./fleet-preflight.js";
import {
  describeError,
  type PreflightFacts,
  type PreflightItem,
  type PreflightOptions,
  type PreflightResult,
  shortMessage,
} from "./preflight-items.js";

/**
 * Everything a run needs from the account, checked before any invocation (and all that
 * `run --dry-run` does): credentials, each region enabled, the quota in force, the stack
 * present and current, the iperf3 server ready with time to live beyond the run, and the
 * account's unreserved concurrency against the parallelism. Reads only, with short timeouts
 * and one retry at most, so without network it answers in seconds. Every item is checked and
 * listed; a failure never hides the next one.
 */

const regionCheckNames = ["region", "quota", "stack", "server", "concurrency"] as const;

export async function runPreflight(options: PreflightOptions): Promise<PreflightResult> {
  const items: PreflightItem[] = [];
  const now = options.now ?? (() => new Date());
  const first = options.regions[0]?.region ?? "us-east-1";
  const credentials = options.credentials ?? credentialChain(options.profile);
  // 1. credentials: the chain, then who they belong to
  let account: string | null = null;
  try {
    if (typeof credentials === "function") {
      const resolved = await credentials();
      if (!resolved.accessKeyId) throw new Error("empty credentials");
    }
  } catch (error) {
    items.push({
      check: "credentials",
      region: null,
      status: "failed",
      detail: `no AWS credentials found (${shortMessage(error)}); ${missingCredentialsHelp(options.profile)}`,
    });
    for (const target of options.regions)
      for (const check of [...regionCheckNames, ...fleetCheckNames(target)])
        items.push({ check, region: target.region, status: "skipped", detail: "needs credentials" });
    return { items, ok: false, account, facts: [] };
  }
  // the SDK clients load only now: without credentials the answer above came at once
  const [
    { createAwsClients, destroyAwsClients },
    checks,
    { noRetries, patientRetries },
    { PlannedCallRecorder },
  ] = await Promise.all([
    import("./aws-clients.js"),
    import("./preflight-checks.js"),
    import("./call-retries.js"),
    import("./planned-calls.js"),
  ]);
  // the preflight only reads: a call that would change something is held back, in every mode;
  // a real run's preflight may also ask the agent function (an Invoke that changes nothing)
  const recorder =
    options.recorder ??
    new PlannedCallRecorder(true, options.dryRun === false ? new Set(["Lambda.Invoke"]) : new Set());
  const clientsFor = (region: string): AwsClients =>
    createAwsClients({
      region,
      credentials,
      ...(options.profile ? { profile: options.profile } : {}),
      // throttling waited out as anywhere; a connection that fails is tried twice, so no network answers fast
      retries: options.requestHandler ? noRetries : { ...patientRetries, transientAttempts: 2 },
      controlTimeouts: { connectionMs: 3_000, requestMs: 8_000 },
      recorder,
      ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
    });
  const identityClients = clientsFor(first);
  try {
    const identity = await checks.checkIdentity(identityClients);
    account = identity.account;
    items.push({
      check: "credentials",
      region: null,
      status: "ok",
      detail: `${identity.arn} (account ${account})`,
    });
  } catch (error) {
    items.push({
      check: "credentials",
      region: null,
      status: "failed",
      detail: `sts GetCallerIdentity: ${describeError(error)}`,
    });
  } finally {
    destroyAwsClients(identityClients);
  }
  const credentialsOk = items[0]?.status === "ok";
  const expectedAgentCodeKey = credentialsOk ? options.expectedAgentCodeKey() : null;

  // 2.. per region, in parallel: each region's items stay together in the list
  const perRegion = await Promise.all(
    options.regions.map(async (region) => {
      if (!credentialsOk)
        return {
          items: [...regionCheckNames, ...fleetCheckNames(region)].map(
            (check): PreflightItem => ({
              check,
              region: region.region,
              status: "skipped",
              detail: "needs credentials",
            }),
          ),
          facts: null,
        };
      const clients = clientsFor(region.region);
      try {
        return await checks.checkRegion(clients, region, { ...options, expectedAgentCodeKey }, now());
      } finally {
        destroyAwsClients(clients);
      }
    }),
  );
  const facts: PreflightFacts[] = [];
  for (const region of perRegion) {
    items.push(...region.items);
    if (region.facts) facts.push(region.facts);
  }
  return {
    items,
    ok: items.every((item) => item.status === "ok" || item.status === "unchecked"),
    account,
    facts,
  };
}

/** The preflight as the terminal shows it: one item per line, wrapped under its detail past `width`. */
export function formatPreflight(result: Pick<PreflightResult, "items" | "account">, width = 100): string {
  const mark = { ok: "ok  ", failed: "FAIL", skipped: "--  ", unchecked: "--  " } as const;
  const lines = result.items.flatMap((item) => {
    const head = `  ${mark[item.status]} ${item.check.padEnd(12)} ${(item.region ?? "").padEnd(15)} `;
    return wrap(`${head}${item.detail}`, width, " ".repeat(head.length));
  });
  const failed = result.items.filter((item) => item.status === "failed").length;
  return [
    `Preflight${result.account ? ` (account ${result.account})` : ""}:`,
    ...lines,
    failed === 0 ? "  all checks passed" : `  ${failed} check(s) failed`,
  ].join("\n");
}
