import type { ReportModel } from "./report-model.js";

/** How every number was measured, in the same words in every format. */
export function methodNotes(model: ReportModel): string[] {
  const prices = model.analysis.prices;
  const notes = [
    "Throughput: bytes moved / measured seconds per invocation (whole-test average), in Mbit/s (1 Mbit = 1,000,000 bits). Median over the successful repetitions of a cell; n = successful/planned.",
    "Spread: min-max, interquartile range (quartiles by linear interpolation, type 7) and coefficient of variation (sample standard deviation / mean; needs n >= 2).",
    "Burst: the first second of the transfer. Sustained: median of the per-interval rates after the first second.",
    "CPU: client CPU seconds per second of test (cores). Share: memory / 1,769 MB per vCPU. CPU-BOUND when the median use is >= 90% of the share: then the client, not the network, may set the rate.",
    "Quota %: median throughput / the per-environment bandwidth quota in force for the target.",
    "Plateau: highest median over the memory sizes; knee: smallest memory reaching 95% of it; slope: least-squares Mbit/s per GB of memory on the rising part.",
    `Cost per GB moved: memory (GB) x seconds per GB at the median rate x Lambda GB-second price, plus requests; list prices of ${prices.retrievedOn} (${prices.source}); free tier and data transfer not included. Recommended: the cheapest size reaching 95% of the plateau.`,
    "Failed invocations are counted per error kind and never enter the statistics.",
  ];
  if (model.label) {
    notes.unshift(
      model.analysis.unshaped
        ? "EMULATED AND UNSHAPED: measured in the local lab without kernel shaping (no root or tc): the numbers show this machine's loopback, not Lambda."
        : "EMULATED: measured in the local lab, whose links and CPU follow a profile of Lambda's published limits. Lab results are priced as the lab's reference region.",
    );
  }
  return notes;
}
