import { CreateSecurityGroupCommand, RunInstancesCommand } from "@aws-sdk/client-ec2";
import { GetRoleCommand, SimulatePrincipalPolicyCommand } from "@aws-sdk/client-iam";
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts";
import type { AwsClients } from "./aws-clients.js";
import { errorName } from "./backoff.js";
import { operatorPolicyActions, optionalOperatorActions } from "./operator-policy.js";
import { principalArnCandidates, type SimulationRequest, simulationRequests } from "./policy-simulation.js";
import type { ServerNetwork } from "./server-network.js";
import { serverMetadataOptions } from "./server-template.js";

/**
 * What `deploy --dry-run` asks the account before anything is created, for what organization
 * guardrails deny most: EC2's own dry runs of the server's security group and of the instance
 * with its public address and tags (DryRunOperation: allowed; UnauthorizedOperation: denied,
 * by IAM or an SCP), and IAM's policy simulator for every statement of the operator policy,
 * against the caller's own policies. Nothing is created: EC2 checks and stops, the simulator
 * only evaluates. What no dry run can find: rules that Config or Firewall Manager revoke after
 * creation (a group open to 0.0.0.0/0); the run's preflight then finds the port unreachable.
 */
export interface DryRunFinding {
  check: "security-group" | "instance" | "operator-actions";
  allowed: boolean | null;
  detail: string;
}

type Tag = { Key: string; Value: string };

export async function deployDryRunChecks(
  clients: AwsClients,
  server: { instanceType: string; imageId: string; network: ServerNetwork } | null,
  tags: Tag[],
): Promise<DryRunFinding[]> {
  const findings: DryRunFinding[] = [];
  if (server) {
    findings.push(
      await ec2DryRun("security-group", () =>
        clients.ec2.send(
          new CreateSecurityGroupCommand({
            DryRun: true,
            GroupName: "lambda-netbench-dry-run",
            Description: "lambda-netbench iperf3 server: its iperf3 ports only (RSA-authenticated), no SSH",
            VpcId: server.network.vpcId,
            TagSpecifications: [{ ResourceType: "security-group", Tags: tags }],
          }),
        ),
      ),
    );
    findings.push(
      await ec2DryRun("instance", () =>
        clients.ec2.send(
          new RunInstancesCommand({
            DryRun: true,
            ImageId: server.imageId,
            InstanceType: server.instanceType as never,
            MinCount: 1,
            MaxCount: 1,
            NetworkInterfaces: [
              { DeviceIndex: 0, SubnetId: server.network.subnetId, AssociatePublicIpAddress: true },
            ],
            // as the template launches it: its metadata options, and the tags on the instance, its
            // root volume and its network interface (an organization's tag policy checks each);
            // not its instance profile, which exists only once the stack does
            MetadataOptions: serverMetadataOptions,
            TagSpecifications: (["instance", "volume", "network-interface"] as const).map((type) => ({
              ResourceType: type,
              Tags: tags,
            })),
          }),
        ),
      ),
    );
  }
  findings.push(await simulateOperatorActions(clients, tags));
  return findings;
}

async function ec2DryRun(
  check: DryRunFinding["check"],
  call: () => Promise<unknown>,
): Promise<DryRunFinding> {
  const what =
    check === "instance"
      ? "the server instance with a public IPv4 address and the tags"
      : "the server's security group with the tags";
  try {
    await call();
    return { check, allowed: true, detail: `${what}: allowed` };
  } catch (error) {
    const name = errorName(error);
    if (name === "DryRunOperation") return { check, allowed: true, detail: `${what}: allowed (EC2 dry run)` };
    if (name === "UnauthorizedOperation")
      return {
        check,
        allowed: false,
        detail: `${what}: DENIED (EC2 dry run: UnauthorizedOperation; an SCP or your policy; \`aws sts decode-authorization-message\` on the encoded message says which): a guardrail on public addresses or tags, ask the account's administrators, or deploy without --with-server and measure S3 only`,
      };
    return {
      check,
      allowed: null,
      detail: `${what}: could not check (${name}: ${(error as Error).message})`,
    };
  }
}

/**
 * The operator policy as the caller holds it, statement by statement (each with a resource it
 * acts on and the context its calls carry: `simulationRequests`), against the caller's role
 * (its path found when STS's ARN lacks it: the next candidate, or GetRole, on NoSuchEntity).
 */
async function simulateOperatorActions(clients: AwsClients, tags: Tag[]): Promise<DryRunFinding> {
  const check = "operator-actions";
  try {
    const identity = await clients.sts.send(new GetCallerIdentityCommand({}));
    const callerArn = identity.Arn ?? "";
    const partition = /^arn:(aws[\w-]*):/.exec(callerArn)?.[1] ?? "aws";
    const requests = simulationRequests({
      partition,
      region: clients.region,
      account: identity.Account ?? "",
      tags,
    });
    const candidates = principalArnCandidates(callerArn, clients.region);
    let source = candidates.shift() ?? callerArn;
    let pathLookedUp = false;
    const deniedSet = new Set<string>();
    const simulate = async (request: SimulationRequest, actions: string[]) => {
      let marker: string | undefined;
      do {
        const page = await clients.iam.send(
          new SimulatePrincipalPolicyCommand({
            PolicySourceArn: source,
            ActionNames: actions,
            ...(request.resourceArns ? { ResourceArns: request.resourceArns } : {}),
            ContextEntries: request.contextEntries,
            Marker: marker,
          }),
        );
        for (const result of page.EvaluationResults ?? []) {
          const decisions = [
            result.EvalDecision,
            ...(result.ResourceSpecificResults ?? []).map((r) => r.EvalResourceDecision),
          ];
          if (decisions.some((d) => d !== undefined && d !== "allowed") && result.EvalActionName)
            deniedSet.add(result.EvalActionName);
        }
        marker = page.IsTruncated ? page.Marker : undefined;
      } while (marker);
    };
    // the simulator takes at most 128 actions per call
    for (const request of requests)
      for (let start = 0; start < request.actions.length; start += 100) {
        const actions = request.actions.slice(start, start + 100);
        for (;;) {
          try {
            await simulate(request, actions);
            break;
          } catch (error) {
            if (!["NoSuchEntity", "NoSuchEntityException"].includes(errorName(error))) throw error;
            // STS drops the role's path: IAM says where the role is, else the next likely path
            if (!pathLookedUp) {
              pathLookedUp = true;
              const path = await rolePath(clients, callerArn);
              if (path) {
                source = principalArnCandidates(callerArn, clients.region, path)[0] ?? source;
                continue;
              }
            }
            const next = candidates.shift();
            if (!next) throw error;
            source = next;
          }
        }
      }
    const actions = [...operatorPolicyActions()].sort();
    const denied = actions.filter((action) => deniedSet.has(action));
    // an action the tool works without is said, but does not fail the dry run
    const optional = optionalOperatorActions();
    const required = denied.filter((action) => !optional.has(action));
    const withoutOptional = denied.filter((action) => optional.has(action));
    const lost = withoutOptional
      .map((action) => `; not allowed: ${action} (optional: without it ${optional.get(action)})`)
      .join("");
    return required.length === 0
      ? {
          check,
          allowed: true,
          detail: `all ${actions.length - withoutOptional.length} ${lost ? "required " : ""}actions of the operator policy allowed for ${source}${lost}`,
        }
      : {
          check,
          allowed: false,
          detail: `${required.length} of ${actions.length} actions not allowed for ${source}: ${required.join(", ")} (attach the policies of \`deploy --print-operator-policy\`)${lost}`,
        };
  } catch (error) {
    return {
      check,
      allowed: null,
      detail: `could not simulate the operator policy (${errorName(error)}: ${(error as Error).message}); iam:SimulatePrincipalPolicy on your own principal is needed for this check`,
    };
  }
}

/** The caller's role's path from IAM (undefined where GetRole is denied or the caller is no role). */
async function rolePath(clients: AwsClients, callerArn: string): Promise<string | undefined> {
  const name = /:assumed-role\/([^/]+)\//.exec(callerArn)?.[1];
  if (!name) return undefined;
  try {
    const role = await clients.iam.send(new GetRoleCommand({ RoleName: name }));
    return role.Role?.Path;
  } catch {
    return undefined;
  }
}
