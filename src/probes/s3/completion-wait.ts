import type { IntervalSamples } from "../interval-sampler.js";

/**
 * An upload's samples carried on to the moment CompleteMultipartUpload answered: the object
 * exists only then, so the wait belongs to the upload's measured time. Nothing of the object
 * crosses the link while S3 answers the last parts and assembles it, so that time joins the last
 * interval that moved bytes (its bytes unchanged, its measured length up to the answer), with any
 * empty intervals after it: a rate over the samples then covers the whole upload, where empty
 * trailing intervals would read as idle after the last byte and drop out of it. Pure.
 */
export function samplesUntilCompletion(samples: IntervalSamples, endSeconds: number): IntervalSamples {
  let last = samples.bytes.length - 1;
  while (last >= 0 && !((samples.bytes[last] as number) > 0)) last -= 1;
  if (last < 0) return samples;
  const lastStart = samples.startSeconds[last] as number;
  if (!(endSeconds > lastStart)) return samples;
  const durationSeconds = samples.durationSeconds.slice(0, last + 1);
  durationSeconds[last] = endSeconds - lastStart;
  return {
    intervalSeconds: samples.intervalSeconds,
    startSeconds: samples.startSeconds.slice(0, last + 1),
    durationSeconds,
    bytes: samples.bytes.slice(0, last + 1),
  };
}
