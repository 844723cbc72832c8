import { type LabProfile, labProfileSchema } from "../plan/lab-profile.js";
import type { SeriesModel } from "./series-fit.js";
import { median } from "./statistics.js";

/**
 * Models fitted to measurements made elsewhere (series-fit.ts) as a lab profile, and the probe
 * that replays them with the original's own settings. Pure.
 *
 * Per direction the median sustained rate (one curve point, at the memory size given; one
 * direction measured: the other copies it); one burst, the median bucket and peak over the
 * directions. Where the sampling bounded the peak from below only, the profile takes the bound:
 * the slowest peak the samples allow, which empties the bucket by the end of the samples the
 * burst ran in, so a replay sampled the same way gives the same first samples. The source says so.
 */

export interface SeriesReplayProbe {
  kind: "iperf3";
  direction: "upload" | "download";
  parallel: number;
  timeSeconds: number;
  intervalMs: number;
  omitSeconds: 0;
  /** Idle before each test, so every repetition starts with the bucket refilled, as the original did. */
  restSeconds?: number;
}

/** A sample length as read (0.9999970 s is iperf3's 1 s): three significant figures. */
const formatSeconds = (seconds: number) => String(Number(seconds.toPrecision(3)));
const mbps = (bitsPerSecond: number) => Math.round(bitsPerSecond / 1e4) / 100;
const middle = (values: number[]) => (values.length === 0 ? null : median(values));

/** Throws when a model has no direction (a CSV without --direction): the lab needs to know which side to shape. */
export function seriesProfile(
  name: string,
  models: readonly SeriesModel[],
  memoryMb: number,
  measuredOn: string,
): LabProfile {
  const unstated = models.find((m) => m.direction === null);
  if (unstated)
    throw new Error(
      "--direction: the input does not say its direction (a CSV); give upload or download to save a profile",
    );
  const curve = (direction: "upload" | "download") => {
    const model = models.find((m) => m.direction === direction);
    return model ? [{ memoryMb, megabitsPerSecond: mbps(model.sustainedBitsPerSecond.median) }] : null;
  };
  const download = curve("download");
  const upload = curve("upload");
  if (!download && !upload) throw new Error("save profile: no fitted transfer to turn into a profile");
  const withBurst = models.filter((m) => m.peakBitsPerSecond && m.bucketBytes);
  const peak = middle(withBurst.map((m) => m.peakBitsPerSecond?.spread.median ?? 0));
  const bucket = middle(withBurst.map((m) => m.bucketBytes?.median ?? 0));
  const bounded = withBurst.some((m) => m.peakBitsPerSecond?.bound === "at-least");
  const oneDirection = !download ? "upload" : !upload ? "download" : null;
  const described = models
    .map(
      (m) =>
        `${m.direction} at ${formatSeconds(m.intervalSeconds.median)} s samples: sustained ${mbps(m.sustainedBitsPerSecond.median)} Mbit/s, ` +
        (m.bucketBytes && m.peakBitsPerSecond
          ? `bucket ${(m.bucketBytes.median / 1e6).toFixed(1)} MB, peak ${m.peakBitsPerSecond.bound === "at-least" ? "at least " : ""}${mbps(m.peakBitsPerSecond.spread.median)} Mbit/s`
          : "no burst") +
        ` (n=${m.n})`,
    )
    .join("; ");
  return labProfileSchema.parse({
    name,
    description: `Fitted by lambda-netbench fit to ${measuredOn}: ${described}`,
    source: [
      `lambda-netbench fit of ${measuredOn}; rates and bytes are TCP payload, medians over the transfers.`,
      oneDirection ? `Only ${oneDirection} was measured: the other direction copies it.` : "",
      bounded
        ? "The samples bound the peak from below only: the profile takes that bound (the slowest peak the samples allow)."
        : "",
      "The lab's shaper refills its bucket at the sustained rate while idle; no refill, per-flow cap, round trip or CPU share was measured (defaults apply).",
    ]
      .filter((part) => part !== "")
      .join(" "),
    download: download ?? upload,
    upload: upload ?? download,
    burst:
      peak !== null && bucket !== null
        ? { peakMegabitsPerSecond: mbps(peak), bytes: Math.round(bucket) }
        : null,
    payload: true,
  });
}

/** The probe that replays a model with the original's settings: its streams, interval and length, one direction. */
export function seriesReplayProbe(model: SeriesModel): SeriesReplayProbe {
  return {
    kind: "iperf3",
    direction: model.direction ?? "upload",
    parallel: model.replay.streams,
    // the plan's iperf3 probe runs whole tests of at least 1 s; the samples' length rounded up
    timeSeconds: Math.max(1, Math.ceil(model.replay.durationSeconds - 0.05)),
    intervalMs: Math.min(10_000, Math.max(10, Math.round(model.replay.intervalSeconds * 1000))),
    omitSeconds: 0,
    ...refillRest(model),
  };
}

/**
 * Seconds that refill the fitted bucket at the sustained rate (the lab's shaper refills so),
 * with a quarter and half a second to spare, in whole seconds: nothing without a burst.
 */
function refillRest(model: SeriesModel): { restSeconds?: number } {
  const bucketBytes = model.bucketBytes?.median ?? 0;
  const sustainedBytesPerSecond = model.sustainedBitsPerSecond.median / 8;
  if (!(bucketBytes > 0) || !(sustainedBytesPerSecond > 0)) return {};
  return { restSeconds: Math.min(600, Math.ceil((bucketBytes / sustainedBytesPerSecond) * 1.25 + 0.5)) };
}
