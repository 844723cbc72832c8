import {
  type _InstanceType,
  DescribeInstanceTypesCommand,
  type EC2Client,
  paginateDescribeInstances,
} from "@aws-sdk/client-ec2";
import {
  GetAWSDefaultServiceQuotaCommand,
  GetServiceQuotaCommand,
  type ServiceQuotasClient,
} from "@aws-sdk/client-service-quotas";
import { errorName } from "./backoff.js";

/**
 * Does the iperf3 server fit the account's EC2 vCPU quota? New accounts start with a few vCPUs
 * of On-Demand capacity, and a server over it fails inside the stack update
 * (`VcpuLimitExceeded`) after minutes of waiting. EC2 counts running On-Demand instances in
 * vCPUs per family group, each group one quota (Service Quotas, service code `ec2`).
 * Reads only: DescribeInstanceTypes (the type's vCPUs), GetServiceQuota (the value in force,
 * AWS's default when the account has none of its own), DescribeInstances (what runs now).
 */

interface VcpuQuota {
  code: string;
  name: string;
}

/** The family groups EC2's On-Demand vCPU quotas cover, by instance family (the part before "."). */
const familyQuotas: { family: RegExp; quota: VcpuQuota }[] = [
  {
    // c8gn, m7i-flex, r7iz, t4g, im4gn, is4gen...: the standard group
    family: /^([acdhimrtz]\d|i[ms]\d)/,
    quota: { code: "L-1216C47A", name: "Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances" },
  },
  { family: /^f\d/, quota: { code: "L-74FC7D96", name: "Running On-Demand F instances" } },
  { family: /^(g|gr|vt)\d/, quota: { code: "L-DB2E81BA", name: "Running On-Demand G and VT instances" } },
  { family: /^inf\d/, quota: { code: "L-1945791B", name: "Running On-Demand Inf instances" } },
  { family: /^p\d/, quota: { code: "L-417A185B", name: "Running On-Demand P instances" } },
  { family: /^x\d/, quota: { code: "L-7295265B", name: "Running On-Demand X instances" } },
];

/** Every vCPU quota code the check may read (the operator policy grants them). */
export const vcpuQuotaCodes = familyQuotas.map((entry) => entry.quota.code);

export function vcpuQuotaFor(instanceType: string): VcpuQuota | null {
  const family = instanceType.split(".")[0] ?? "";
  return familyQuotas.find((entry) => entry.family.test(family))?.quota ?? null;
}

/** The server does not fit: nothing was changed, and the message says how to ask for more. */
export class VcpuQuotaError extends Error {
  constructor(
    readonly region: string,
    readonly instanceType: string,
    readonly quota: VcpuQuota & { valueVcpus: number; usedVcpus: number | null },
    neededVcpus: number,
  ) {
    const used = quota.usedVcpus ?? 0;
    const inUse = quota.usedVcpus === null ? "" : `, ${quota.usedVcpus} in use by running instances`;
    super(
      `the iperf3 server (${instanceType}, ${neededVcpus} vCPUs) does not fit EC2's vCPU quota in ${region}: "${quota.name}" (Service Quotas ec2 / ${quota.code}) is ${quota.valueVcpus} vCPUs${inUse}; deploy changed nothing. Ask for more: \`aws service-quotas request-service-quota-increase --service-code ec2 --quota-code ${quota.code} --desired-value ${used + neededVcpus} --region ${region}\` (or the Service Quotas console; a new account's increase is often granted within hours), or choose a smaller type with --instance-type`,
    );
    this.name = "VcpuQuotaError";
  }
}

/** What the check found when the server fits, or could not be checked (the deploy goes on). */
export interface VcpuCheck {
  status: "ok" | "unchecked";
  detail: string;
}

async function quotaValue(quotas: ServiceQuotasClient, code: string): Promise<number | null> {
  const ask = { ServiceCode: "ec2", QuotaCode: code };
  try {
    return (await quotas.send(new GetServiceQuotaCommand(ask))).Quota?.Value ?? null;
  } catch (error) {
    // an account that never had the quota changed answers from AWS's defaults only
    if (errorName(error) !== "NoSuchResourceException") throw error;
    return (await quotas.send(new GetAWSDefaultServiceQuotaCommand(ask))).Quota?.Value ?? null;
  }
}

async function typeVcpus(ec2: EC2Client, instanceTypes: string[]): Promise<Map<string, number>> {
  const response = await ec2.send(
    new DescribeInstanceTypesCommand({ InstanceTypes: instanceTypes as _InstanceType[] }),
  );
  return new Map(
    (response.InstanceTypes ?? []).map((type) => [
      String(type.InstanceType),
      type.VCpuInfo?.DefaultVCpus ?? 0,
    ]),
  );
}

/** vCPUs of the pending and running instances counted against `code`, but `exceptInstanceId`. */
async function usedVcpus(ec2: EC2Client, code: string, exceptInstanceId?: string): Promise<number> {
  let used = 0;
  const filters = [{ Name: "instance-state-name", Values: ["pending", "running"] }];
  for await (const page of paginateDescribeInstances({ client: ec2 }, { Filters: filters }))
    for (const reservation of page.Reservations ?? [])
      for (const instance of reservation.Instances ?? []) {
        // Spot instances count against the Spot quotas, not these
        if (
          instance.InstanceLifecycle === "spot" ||
          instance.InstanceId === exceptInstanceId ||
          vcpuQuotaFor(String(instance.InstanceType))?.code !== code
        )
          continue;
        used += (instance.CpuOptions?.CoreCount ?? 0) * (instance.CpuOptions?.ThreadsPerCore ?? 1);
      }
  return used;
}

/**
 * Throws VcpuQuotaError when the server's vCPUs and those already running (but the server it
 * replaces, removed first) exceed the quota; otherwise says what it found. A quota it cannot
 * read (denied, unknown family) is "unchecked": the deploy goes on, and EC2 itself refuses a
 * server over the quota.
 */
export async function checkServerVcpus(
  clients: { ec2: EC2Client; quotas: ServiceQuotasClient; region: string },
  instanceType: string,
  replacedInstanceId?: string,
): Promise<VcpuCheck> {
  const quota = vcpuQuotaFor(instanceType);
  if (!quota) return { status: "unchecked", detail: `no On-Demand vCPU quota known for ${instanceType}` };
  let needed: number;
  let value: number | null;
  try {
    needed = (await typeVcpus(clients.ec2, [instanceType])).get(instanceType) ?? 0;
    value = await quotaValue(clients.quotas, quota.code);
  } catch (error) {
    const reason = `${errorName(error)}: ${error instanceof Error ? error.message : String(error)}`;
    return { status: "unchecked", detail: `EC2 vCPU quota ${quota.code} not read (${reason})` };
  }
  if (value === null || needed === 0)
    return { status: "unchecked", detail: `EC2 vCPU quota ${quota.code}: no value reported` };
  let used: number | null;
  try {
    used = await usedVcpus(clients.ec2, quota.code, replacedInstanceId);
  } catch {
    // without the usage, the quota alone still catches a new account's small one
    used = null;
  }
  if ((used ?? 0) + needed > value)
    throw new VcpuQuotaError(
      clients.region,
      instanceType,
      { ...quota, valueVcpus: value, usedVcpus: used },
      needed,
    );
  return {
    status: "ok",
    detail: `EC2 vCPU quota ${quota.code}: ${instanceType} needs ${needed} of ${value} vCPUs (${used === null ? "usage not read" : `${used} in use`})`,
  };
}
