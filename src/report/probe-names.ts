import type { Cell } from "../plan/cell.js";

/**
 * Short names of a probe for narrow places (the console summary, the verdict). The full label
 * ("s3-get 1024 MiB conc 4 chunk 16 MiB") stays in the wide table; these keep what tells two
 * rows apart. `family` groups the variants that answer one question (one verdict line each).
 */
export interface ProbeNames {
  /** "iperf3 upload", "S3 GET", "S3 GET single stream", "S3 PUT" (+ " in VPC", " x4 envs"). */
  family: string;
  /** "iperf3 up -P4", "s3-get conc 4", "s3-put conc 4" (+ the same axes). */
  short: string;
}

const directionShort: Record<string, string> = { upload: "up", download: "down", bidir: "bidir" };

export function probeNames(cell: Pick<Cell, "probe" | "vpc" | "environments">): ProbeNames {
  const axes = `${cell.vpc ? " in VPC" : ""}${(cell.environments ?? 1) === 1 ? "" : ` x${cell.environments} envs`}`;
  const probe = cell.probe;
  switch (probe.kind) {
    case "iperf3":
      return {
        family: `iperf3 ${probe.direction}${axes}`,
        short: `iperf3 ${directionShort[probe.direction] ?? probe.direction} -P${probe.parallel}${axes}`,
      };
    case "s3-get":
      return {
        // the study's "single stream" is a question of its own: one connection's share
        family: `S3 GET${probe.concurrency === 1 ? " single stream" : ""}${axes}`,
        short: `s3-get conc ${probe.concurrency}${axes}`,
      };
    case "s3-put":
      return { family: `S3 PUT${axes}`, short: `s3-put conc ${probe.concurrency}${axes}` };
    default: {
      // a kind added later still gets a name: its kind
      const kind = (probe as { kind: string }).kind;
      return { family: `${kind}${axes}`, short: `${kind}${axes}` };
    }
  }
}
