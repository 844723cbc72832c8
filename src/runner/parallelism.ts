import type { Target } from "../plan/plan-schema.js";

/**
 * How many invocations at once when the plan does not say. One, everywhere:
 * - on the lab, its environments share this machine's few cores and one cloud namespace
 *   (parallel tests would measure each other);
 * - on AWS, a new account's whole concurrency quota can be 10 (and its unreserved share less),
 *   the seed study ran one environment at a time, and the iperf3 server serves one test per
 *   port. A plan that wants more says `parallelism:`; the preflight checks it against the
 *   account's unreserved concurrency.
 */
export function defaultParallelism(_target: Target): number {
  return 1;
}
