import { isEmulated } from "../plan/platforms.js";
import { movesData } from "../probes/registry.js";
import { minimumEffectShare } from "../results/analysis.js";
import { ceilingNoiseShare } from "../results/ceiling.js";
import { intervalMethod } from "../results/median-interval.js";
import type { ReportModel } from "./report-model.js";

/** How every number was measured, in the same words in every format. */
export function methodNotes(model: ReportModel): string[] {
  const prices = model.analysis.prices;
  const notes = [
    "Three rates per invocation, in Mbit/s (1 Mbit = 1,000,000 bits), each shown as the median over the successful repetitions of a cell with n, and [min-max] from n >= 3: BURST, the start of the transfer until the per-interval rate settles (detected from the samples, not assumed: its peak, its length at the peak and its bytes above the sustained rate, each only as fine as the samples hold it: '≥' a lower bound on the peak, '< 0.25 s' a burst that ended inside its first sample); SUSTAINED, the bytes after the burst over their measured seconds (the median of their interval rates is kept in report.json as a diagnostic); AVG INCL. BURST, the whole transfer (bytes / measured seconds), which a burst inflates on short transfers.",
    `Burst detection: reference level = median interval rate of the second half of the record; the burst runs from the start until two intervals in a row are at most 15% (or 3 robust SDs) above it. A record under 2 s, or whose rate has not settled by half of it, has no sustained rate (shown as '–' with the reason), never the average. Where the ceiling in force is known (the lab profile's curve at that memory size, or the quota read for the AWS region; payload), a rate above it by more than ${Math.round(ceilingNoiseShare * 100)}% is burst: the sustained part starts where the rate falls to the ceiling, and a transfer that never does ended inside the burst (its bytes above the quota and seconds are shown instead). Where none is known the sustained rate is marked unconfirmed.`,
    "Every headline (plateau, knee, slope, recommended memory, cost per GB, time to move N GB, quota %) uses the sustained rate.",
    "iperf3 upload: avg incl. burst and sent are the sender side (end.sum_sent), as the published study kept it; received (end.sum_received) beside it. s3-get seconds per object: the transfer alone, and the whole download as the study timed it (client and credential set-up, HEAD, transfer).",
    "Spread: min-max in the tables, only from n >= 3 (below that a cell is listed as too few to tell); the CSV and JSON add the interquartile range (type 7) and coefficient of variation (sample standard deviation / mean; needs n >= 2).",
    `CPU: client CPU seconds per second of test (cores). Share: the environment's CPU (${cpuBases(model)}). CPU-BOUND when the median use is >= 90% of the share: then the client, not the network, may set the rate.`,
    "Quota %: median sustained rate / the per-environment bandwidth quota in force for the target. Retransmits: TCP segments retransmitted in the environment's network namespace during the test (median).",
    `Plateau: the highest median sustained rate among the sizes with n >= 3. A size is below it only when the ${intervalMethod} of that size against the plateau's lies wholly more than ${minimumEffectShare * 100}% under the plateau; otherwise it reaches it. Knee: the smallest size at the plateau, every smaller one below it; none from one size, from sizes with n < 3 before it, or when the plateau's size is CPU-bound below the quota. Slope: least-squares Mbit/s per GB of memory on the rising part.`,
    `Cost per GB moved: memory (GB) x seconds per GB at the median sustained rate x Lambda GB-second price, plus requests; list prices of ${prices.retrievedOn} (${prices.source}); free tier and data transfer not included. Recommended: the cheapest size at the plateau that is not CPU-bound, with its n; none without a knee.`,
    "Failed invocations are counted per error kind and never enter the statistics.",
  ];
  if (model.baseline)
    notes.push(
      `Published baseline ${model.baseline.name} (${model.baseline.source}; measured ${model.baseline.studyPeriod.from} to ${model.baseline.studyPeriod.to}): only the figures the study states; "about" figures marked ~, s3-get rates derived from its seconds per object marked derived; a lab profile is shown beside the region whose quota it emulates.`,
    );
  const periods = latencyLabPeriods(model);
  if (periods.length > 0)
    notes.push(
      `Latency in the lab: the CPU share is a CFS quota per ${periods.map((p) => `${p} ms`).join(" / ")} period (profile cpuPeriodMs). A share too small for a request's CPU waits for the next period: at 100 ms (the kernel's default) in few long waits that show in the p90 and p99, at 20 ms (what Lambda's published throttling pauses suggest; docs/lab.md) in many short ones that raise the p50 too.`,
    );
  if (model.label) {
    notes.unshift(
      model.analysis.unshaped
        ? "EMULATED AND UNSHAPED: measured in the local lab without kernel shaping (no root or tc): the numbers show this machine's loopback, not Lambda."
        : "EMULATED: measured in the local lab, whose links and CPU follow a profile of Lambda's published limits. Lab results are priced as the lab's reference region.",
    );
  }
  return notes;
}

/** The CFS periods (ms) of the lab targets with latency cells; a run that states none had the kernel's 100. */
function latencyLabPeriods(model: ReportModel): number[] {
  const keys = new Set(
    model.analysis.latency.cells.filter((c) => isEmulated(c.platform)).map((c) => c.targetKey),
  );
  const periods = model.targets
    .filter((t) => keys.has(t.key))
    .map((t) => {
      const profile = t.details.profile as { cpuPeriodMs?: unknown } | undefined;
      return typeof profile?.cpuPeriodMs === "number" ? profile.cpuPeriodMs : 100;
    });
  return [...new Set(periods)].sort((a, b) => a - b);
}

/** The distinct CPU-share rules of the run's cells, e.g. "memory / 1769 MB per vCPU (profile)". */
function cpuBases(model: ReportModel): string {
  const bases = [
    ...new Set(
      model.analysis.cells
        .filter((c) => movesData(c.probe))
        .map((c) => c.cpuShareBasis.replace(/, capped at.*$/, ", capped by cores")),
    ),
  ];
  return bases.length > 0 ? bases.join("; ") : "memory / 1,769 MB per vCPU";
}
