import { isEmulated } from "../plan/platforms.js";
import type { PlatformFacts } from "./platform-facts.js";

/** AWS: 1,769 MB of memory buys one vCPU, up to 6 vCPUs at 10,240 MB (Lambda documentation). */
export const awsMegabytesPerVcpu = 1_769;
export const awsMaxVcpus = 6;

/** A cell is CPU-bound when its client used at least this share of the CPU it had. */
export const cpuBoundShare = 0.9;

/** The CPU an environment had, in cores, and where the figure comes from (shown in reports). */
export interface CpuShare {
  cores: number;
  basis: string;
}

/**
 * The environment's real CPU share: in the lab, memory / the profile's mbPerVcpu capped by the
 * host's cores (an unshaped lab sets no CPU limit: the host's cores); on AWS, memory / 1,769 MB
 * capped at 6 vCPUs. Read from the run manifest's platform facts, so a report judges a run by the
 * profile it ran with.
 */
export function environmentCpuShare(memoryMb: number, facts: PlatformFacts | undefined): CpuShare {
  const hostCores = positive(facts?.details.hostCores);
  if (facts && isEmulated(facts.platform)) {
    if (facts.unshaped && hostCores !== null)
      return { cores: hostCores, basis: `no CPU limit (unshaped lab): ${hostCores} host cores` };
    const profile = facts.details.profile;
    const mbPerVcpu =
      profile !== null && typeof profile === "object"
        ? positive((profile as Record<string, unknown>).mbPerVcpu)
        : null;
    if (mbPerVcpu !== null) {
      const share = memoryMb / mbPerVcpu;
      return hostCores !== null && share > hostCores
        ? {
            cores: hostCores,
            basis: `memory / ${mbPerVcpu} MB per vCPU (profile), capped at ${hostCores} host cores`,
          }
        : { cores: share, basis: `memory / ${mbPerVcpu} MB per vCPU (profile)` };
    }
  }
  const share = memoryMb / awsMegabytesPerVcpu;
  const basis =
    facts && !isEmulated(facts.platform)
      ? `memory / ${awsMegabytesPerVcpu} MB per vCPU (AWS), at most ${awsMaxVcpus} vCPUs`
      : `memory / ${awsMegabytesPerVcpu} MB per vCPU (assumed: the run states no profile), at most ${awsMaxVcpus} vCPUs`;
  return { cores: Math.min(share, awsMaxVcpus), basis };
}

function positive(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}
