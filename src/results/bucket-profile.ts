import { type LabProfile, labProfileSchema } from "../plan/lab-profile.js";
import type { BucketModel } from "./bucket-cells.js";
import { median } from "./statistics.js";

/**
 * A fitted bucket model as a lab profile (the plan's `profiles:` form), so a measured
 * environment replays offline with its own sustained rate, peak and bucket. Pure.
 *
 * What carries over: per direction and memory size the median sustained rate (a curve point
 * each); one burst (median peak and bucket over the cells, the lab's profiles hold one for both
 * directions); rates and bytes as TCP payload (`payload: true`), as the probe measured them.
 * What does not: the lab's shaper refills its bucket at the sustained rate, whatever refill was
 * measured, and no per-flow cap or round trip was measured; the source says so.
 */

export interface FittedDirection {
  memoryMb: number;
  model: BucketModel;
}

const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e4) / 100;
const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

function curve(fits: FittedDirection[]): Array<{ memoryMb: number; megabitsPerSecond: number }> {
  const byMemory = new Map<number, number>();
  for (const fit of fits) {
    const rate = fit.model.sustainedBitsPerSecond?.median;
    if (rate !== undefined && !byMemory.has(fit.memoryMb)) byMemory.set(fit.memoryMb, mbps(rate));
  }
  return [...byMemory.entries()]
    .sort(([a], [b]) => a - b)
    .map(([memoryMb, megabitsPerSecond]) => ({ memoryMb, megabitsPerSecond }));
}

const middle = (values: number[]): number | null => (values.length === 0 ? null : median(values));

function describeFit(fit: FittedDirection): string {
  const m = fit.model;
  const refill = m.refill?.bytesPerSecond
    ? `refill ${m.refill.bound === "at-least" ? ">= " : ""}${megabytes(m.refill.bytesPerSecond.median)} MB/s (${m.refill.shape})`
    : "no refill measured";
  const burst =
    m.peakBitsPerSecond && m.bucketBytes
      ? `peak ${m.peakBound === "at-least" ? "at least " : ""}${mbps(m.peakBitsPerSecond.median)} Mbit/s, bucket ${megabytes(m.bucketBytes.median)} MB, ${refill}`
      : "no burst";
  const sustained = m.sustainedBitsPerSecond
    ? `sustained ${mbps(m.sustainedBitsPerSecond.median)} Mbit/s`
    : "no sustained rate (never left the burst)";
  return `${m.direction} ${fit.memoryMb} MB: ${sustained}, ${burst} (n=${m.n})`;
}

/** The profile; throws when no fit has a sustained rate (nothing to replay). */
export function bucketProfile(name: string, fits: FittedDirection[], measuredOn: string): LabProfile {
  const download = curve(fits.filter((f) => f.model.direction === "download"));
  const upload = curve(fits.filter((f) => f.model.direction === "upload"));
  if (download.length === 0 && upload.length === 0)
    throw new Error("save profile: no bucket fit with a sustained rate to turn into a profile");
  const peak = middle(
    fits.flatMap((f) => (f.model.peakBitsPerSecond ? [f.model.peakBitsPerSecond.median] : [])),
  );
  const bucket = middle(fits.flatMap((f) => (f.model.bucketBytes ? [f.model.bucketBytes.median] : [])));
  const oneDirection = download.length === 0 ? "upload" : upload.length === 0 ? "download" : null;
  return labProfileSchema.parse({
    name,
    description: `Fitted by the bucket probe on ${measuredOn}: ${fits.map(describeFit).join("; ")}`,
    source: [
      `bucket probe fit (lambda-netbench) of ${measuredOn}; rates and bytes are TCP payload, medians over the repetitions.`,
      oneDirection ? `Only ${oneDirection} was measured: the other direction copies it.` : "",
      fits.some((f) => f.model.burstFound > 0 && f.model.peakBound === "at-least")
        ? "The samples bound a peak from below only (its burst lay inside samples too long to resolve it): the profile takes that bound (the slowest peak the samples allow)."
        : "",
      "The lab's shaper refills its bucket at the sustained rate while idle, whatever refill was measured; no per-flow cap, round trip or CPU share was measured (defaults apply).",
    ]
      .filter((part) => part !== "")
      .join(" "),
    download: download.length > 0 ? download : upload,
    upload: upload.length > 0 ? upload : download,
    burst:
      peak !== null && bucket !== null
        ? { peakMegabitsPerSecond: mbps(peak), bytes: Math.round(bucket) }
        : null,
    payload: true,
  });
}
