import { DescribeRegionsCommand } from "@aws-sdk/client-ec2";
import { GetAccountSettingsCommand } from "@aws-sdk/client-lambda";
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts";
import type { TcpConnectResult } from "../../probes/diagnostics/tcp-connect.js";
import type { AwsClients } from "./aws-clients.js";
import { errorName } from "./backoff.js";
import { regionsEnabledByDefault } from "./commercial-regions.js";
import { fleetCheckNames, fleetPreflightItems } from "./fleet-preflight.js";
import { readServerStatus } from "./iperf3-credentials.js";
import { invokeAgent } from "./lambda-invoker.js";
import { checkMemoryAccepted } from "./memory-limit.js";
import { functionName, stackName } from "./naming.js";
import type { PreflightFacts, PreflightOptions } from "./preflight-items.js";
import {
  describeError,
  type PreflightCheck,
  type PreflightItem,
  type PreflightRegion,
  serverMarginSeconds,
} from "./preflight-items.js";
import { getQuotaReport } from "./quota.js";
import { checkIperf3Handshake } from "./server-handshake.js";
import { describeStack } from "./stack-state.js";
import { vpcOnlyStack } from "./vpc-cells.js";

/**
 * The preflight's account checks (preflight.ts runs them once credentials are found): loaded
 * only then, because the SDK clients take seconds to load on a busy machine and a dry run
 * without credentials must answer at once.
 */
export async function checkIdentity(clients: AwsClients): Promise<{ account: string | null; arn: string }> {
  const identity = await clients.sts.send(new GetCallerIdentityCommand({}));
  return { account: identity.Account ?? null, arn: identity.Arn ?? "?" };
}

export async function checkRegion(
  clients: AwsClients,
  target: PreflightRegion,
  options: Omit<PreflightOptions, "expectedAgentCodeKey"> & { expectedAgentCodeKey: string | null },
  now: Date,
): Promise<{ items: PreflightItem[]; facts: PreflightFacts | null }> {
  const region = target.region;
  const items: PreflightItem[] = [];
  const item = (check: PreflightCheck, status: PreflightItem["status"], detail: string) =>
    items.push({ check, region, status, detail });

  // region enabled (opt-in regions must be enabled before anything works there)
  try {
    const response = await clients.ec2.send(
      new DescribeRegionsCommand({ RegionNames: [region], AllRegions: true }),
    );
    const optIn = response.Regions?.[0]?.OptInStatus ?? "unknown";
    if (optIn === "not-opted-in")
      item(
        "region",
        "failed",
        `${region} is an opt-in region not enabled in this account: enable it in the console (Account > AWS Regions)`,
      );
    else item("region", "ok", `enabled (${optIn})`);
  } catch (error) {
    item("region", "failed", regionRefusal(region, error));
  }
  if (items[0]?.status !== "ok") {
    for (const check of ["quota", "stack", "server", "concurrency", ...fleetCheckNames(target)] as const)
      item(check, "skipped", "region not usable");
    return { items, facts: null };
  }

  const [quota, stack, settings] = await Promise.allSettled([
    getQuotaReport(clients.quotas, region),
    describeStack(clients.cloudFormation),
    clients.lambda.send(new GetAccountSettingsCommand({})),
  ]);

  // the run works without the quota (the platform records why it is missing): not a failure
  const withoutQuota = "the run goes on, its report cannot compare the rates with the quota";
  if (quota.status === "fulfilled")
    item(
      "quota",
      quota.value.valueMbps === null ? "unchecked" : "ok",
      quota.value.valueMbps === null
        ? `no value in force reported: ${withoutQuota}`
        : `${quota.value.valueMbps} Mbit/s in force (AWS default ${quota.value.defaultMbps ?? "?"})`,
    );
  else item("quota", "unchecked", `service-quotas: ${describeError(quota.reason)}: ${withoutQuota}`);

  let outputs: Record<string, string> | null = null;
  if (stack.status === "rejected")
    item("stack", "failed", `cloudformation DescribeStacks: ${describeError(stack.reason)}`);
  else if (stack.value === null)
    item(
      "stack",
      "failed",
      `no ${stackName} stack: run \`lambda-netbench deploy --region ${region}${target.needsServer ? " --with-server" : ""}\``,
    );
  else if (!/_COMPLETE$/.test(stack.value.status) || /ROLLBACK|DELETE/.test(stack.value.status))
    item(
      "stack",
      "failed",
      `stack is ${stack.value.status}: run \`lambda-netbench deploy --region ${region}\` again`,
    );
  else if (!stack.value.outputs.FunctionName)
    item("stack", "failed", `stack has no function yet: run \`lambda-netbench deploy --region ${region}\``);
  else if (options.expectedAgentCodeKey && stack.value.outputs.AgentCodeKey !== options.expectedAgentCodeKey)
    item(
      "stack",
      "failed",
      `stack runs another agent build (${stack.value.outputs.AgentCodeKey ?? "none"}, this tool has ${options.expectedAgentCodeKey}): run \`lambda-netbench deploy --region ${region}\``,
    );
  else if (stack.value.outputs.VpcOnly === "true" && target.outsideVpc)
    item("stack", "failed", vpcOnlyStack(region));
  else {
    outputs = stack.value.outputs;
    item("stack", "ok", `${stack.value.status}, agent ${outputs.AgentCodeKey ?? "?"}`);
  }

  if (!target.needsServer) item("server", "ok", "not needed (no iperf3 in this region)");
  else if (outputs === null) item("server", "skipped", "needs the stack");
  else items.push(await checkServer(clients, target, outputs, options, now));

  if (settings.status === "rejected")
    item("concurrency", "failed", `lambda GetAccountSettings: ${describeError(settings.reason)}`);
  else {
    const unreserved = settings.value.AccountLimit?.UnreservedConcurrentExecutions;
    const total = settings.value.AccountLimit?.ConcurrentExecutions;
    if (unreserved === undefined) item("concurrency", "failed", "no unreserved concurrency reported");
    else if (options.parallelism > unreserved)
      item(
        "concurrency",
        "failed",
        `parallelism ${options.parallelism} is above the account's unreserved concurrency ${unreserved} (of ${total ?? "?"}): lower \`parallelism\` in the plan, or request more concurrency (Service Quotas, Lambda "Concurrent executions")`,
      );
    else
      item(
        "concurrency",
        "ok",
        `parallelism ${options.parallelism} of ${unreserved} unreserved (account limit ${total ?? "?"})`,
      );
  }
  if (target.largestMemoryMb !== undefined) {
    if (outputs === null) item("memory", "skipped", "needs the stack");
    else
      try {
        const memory = await checkMemoryAccepted(
          clients.lambda,
          target.largestMemoryMb,
          outputs.FunctionName,
        );
        item("memory", memory.status, memory.detail);
      } catch (error) {
        item("memory", "failed", `lambda ListVersionsByFunction: ${describeError(error)}`);
      }
  }
  const accountSettings = settings.status === "fulfilled" ? settings.value : null;
  items.push(...(await fleetPreflightItems(clients, target, outputs, options.parallelism, accountSettings)));
  return {
    items,
    facts: {
      region,
      quotaMbps: quota.status === "fulfilled" ? quota.value.valueMbps : null,
      // the server runs whatever the stack's other items say (an older agent, a failed check)
      serverInstanceType: runningServerType(
        stack.status === "fulfilled" ? (stack.value?.outputs ?? null) : null,
        now,
      ),
    },
  };
}

/** The type of the server the stack runs, while its time-to-live lasts (after it, it has terminated itself). */
function runningServerType(outputs: Record<string, string> | null, now: Date): string | null {
  if (!outputs?.ServerInstanceType || !outputs.ServerInstanceId) return null;
  return Date.parse(outputs.ServerExpiresAt ?? "") > now.getTime() ? outputs.ServerInstanceType : null;
}

/** Errors a region's own endpoint gives credentials it does not know (STS accepted them). */
const unknownCredentials = new Set(["AuthFailure", "UnrecognizedClientException", "InvalidClientTokenId"]);

/**
 * Why DescribeRegions failed. A disabled opt-in region does not answer "not enabled" at its own
 * endpoint: it refuses the credentials ("The security token included in the request is
 * invalid"), although STS has just accepted them.
 */
function regionRefusal(region: string, error: unknown): string {
  const refused = `ec2 DescribeRegions: ${describeError(error)}`;
  if (!unknownCredentials.has(errorName(error))) return refused;
  if (regionsEnabledByDefault.has(region))
    return `${refused}: ${region} is enabled in every account, so these credentials are not valid here (a session limited to other regions?)`;
  return `${region} is an opt-in region not enabled in this account (its endpoint refuses credentials that STS accepts: ${describeError(error)}): enable it in the console (Account > AWS Regions) or with \`aws account enable-region --region-name ${region}\`, and wait until it shows "Enabled"`;
}

async function checkServer(
  clients: AwsClients,
  target: PreflightRegion,
  outputs: Record<string, string>,
  options: Pick<PreflightOptions, "handshake" | "dryRun">,
  now: Date,
): Promise<PreflightItem> {
  const region = target.region;
  const fail = (detail: string): PreflightItem => ({ check: "server", region, status: "failed", detail });
  const host = outputs.ServerPublicDnsName || outputs.ServerPublicIp;
  if (!outputs.ServerPorts || !host)
    return fail(`no iperf3 server: run \`lambda-netbench deploy --region ${region} --with-server\``);
  const neededUntil =
    now.getTime() + (target.startsInSeconds + target.durationSeconds + serverMarginSeconds) * 1000;
  const expiresAt = Date.parse(outputs.ServerExpiresAt ?? "");
  const hoursNeeded = Math.ceil(((neededUntil - now.getTime()) / 3_600_000) * 4) / 4;
  if (!(expiresAt > now.getTime()))
    return fail(
      `the server's time-to-live ended at ${outputs.ServerExpiresAt} (it has terminated itself): redeploy with \`lambda-netbench deploy --region ${region} --with-server --ttl-hours ${Math.max(1, hoursNeeded)}\``,
    );
  if (expiresAt < neededUntil)
    return fail(
      `the server terminates itself at ${outputs.ServerExpiresAt}, before the run ends here (about ${new Date(neededUntil).toISOString()} with a ${serverMarginSeconds / 60}-minute margin): extend it in place with \`lambda-netbench deploy --region ${region} --with-server --ttl-hours ${Math.max(1, hoursNeeded)}\``,
    );
  let status: Awaited<ReturnType<typeof readServerStatus>>;
  try {
    status = await readServerStatus(clients.ssm);
  } catch (error) {
    return fail(`ssm GetParameter (server status): ${describeError(error)}`);
  }
  if (status === null || status.instanceId !== (outputs.ServerInstanceId ?? status.instanceId))
    return fail(
      `the server ${outputs.ServerInstanceId ?? ""} has not reported ready (every port answering iperf3): wait, or run \`lambda-netbench deploy --region ${region} --with-server\` to check`,
    );
  const port = Number(outputs.ServerPorts.split("-")[0]);
  const handshake = options.handshake ?? checkIperf3Handshake;
  const answer = await handshake(host, port);
  // the server has reported every port answering on itself; this machine may still be unable to
  // reach it (corporate egress seldom lets TCP 5201 out), while Lambda connects from AWS's network:
  // the function itself is asked, and only its own failure to connect stops the run
  if (answer !== "ready" && answer !== "busy")
    return checkServerFromFunction(
      clients,
      region,
      outputs,
      { host, port, localAnswer: answer },
      {
        invokes: options.dryRun === false,
      },
    );
  return {
    check: "server",
    region,
    status: "ok",
    detail: `${host} ports ${outputs.ServerPorts} answer iperf3${answer === "busy" ? " (busy right now)" : ""}; terminates itself at ${outputs.ServerExpiresAt}`,
  };
}

/**
 * The server check from where the run connects: the agent opens one TCP connection to the
 * server (the `tcp-connect` event) and says how long it took, or what stopped it. A dry run
 * invokes nothing, so there the check stays unchecked.
 */
async function checkServerFromFunction(
  clients: AwsClients,
  region: string,
  outputs: Record<string, string>,
  { host, port, localAnswer }: { host: string; port: number; localAnswer: string },
  { invokes }: { invokes: boolean },
): Promise<PreflightItem> {
  const here = `from this machine ${host}:${port} does not answer an iperf3 handshake (${localAnswer})`;
  const securityGroup = `check the server's security group (\`lambda-netbench deploy --region ${region} --with-server\` restores it)`;
  const unchecked = (why: string): PreflightItem => ({
    check: "server",
    region,
    status: "unchecked",
    detail: `the server reported every port answering iperf3 on itself, but ${here}: a network that lets no outgoing TCP ${port} out (corporate egress, a VPN) gives that while Lambda reaches the server, and ${why}; the run goes on, and if its iperf3 invocations cannot connect either, ${securityGroup}`,
  });
  if (!invokes) return unchecked("a dry run does not invoke the function to ask it");
  const outcome = await invokeAgent(
    clients.lambda,
    "$LATEST",
    { probe: "tcp-connect", host: hostFromFunction(outputs, host), port, timeoutSeconds: 5 },
    { functionName: outputs.FunctionName ?? functionName },
  );
  const response = outcome.response;
  if (!response)
    return unchecked(`the function could not be asked (${outcome.failure?.message ?? "no answer"})`);
  if (!response.ok)
    return unchecked(`the function could not be asked (${response.error.kind}: ${response.error.message})`);
  const result = response.detail as TcpConnectResult;
  if (!result.connected)
    return {
      check: "server",
      region,
      status: "failed",
      detail: `the server reported every port answering iperf3 on itself, but neither this machine (${localAnswer}) nor the agent function (${result.error}) connects to ${host}:${port}: ${securityGroup}, or a rule of the account (Config, Firewall Manager) changed it`,
    };
  return {
    check: "server",
    region,
    status: "ok",
    detail: `${host}:${port} reached from the agent function (TCP connect in ${Math.round(result.connectSeconds * 1000)} ms; ${here}, as corporate egress often does); ports ${outputs.ServerPorts}; terminates itself at ${outputs.ServerExpiresAt}`,
  };
}

/**
 * Where the function asked reaches the server: a `--vpc-only` stack's function in the server's
 * VPC at its private address, as its runs do (vpc-cells.ts); otherwise the public one.
 */
function hostFromFunction(outputs: Record<string, string>, publicHost: string): string {
  const sameVpc =
    outputs.VpcOnly === "true" && outputs.VpcId !== undefined && outputs.VpcId === outputs.ServerVpcId;
  return sameVpc && outputs.ServerPrivateIp ? outputs.ServerPrivateIp : publicHost;
}
