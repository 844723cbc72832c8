import {
  builtInProfiles,
  type LabProfile,
  type LabProfileInput,
  labProfileSchema,
} from "../../src/plan/lab-profile.js";

/**
 * A lab profile at 1/divisor of its rates, for tests: every rate and every byte count divided
 * (both curves, the burst's peak and bytes, the per-flow cap, the S3 connection cap, the host
 * link), every time kept (a burst given in seconds, the round trip). A bucket of B bytes at peak
 * P over sustained S empties and refills in exactly the time of B/k at P/k over S/k, and a flow
 * cap keeps its ratio to the link, so a test checks the shape at rates a busy 2-core host carries
 * with room to spare; the full rates are measured by `npm run bench` (docs/BENCHMARKS.md).
 *
 * The CPU share is kept unless `cpu: "scaled"`: a scaled CPU share (mbPerVcpu x divisor) keeps a
 * CPU-bound cell CPU-bound, but would also slow everything that does not scale (agent start,
 * TLS set-up, a client's first request) by the same factor.
 */
export interface ScaledProfile {
  /** The scaled profile, validated: what a plan's `profiles:` or `customProfiles` takes. */
  profile: LabProfile;
  /** Its name: `NAME-1in<divisor>` (a custom profile may not shadow a built-in one). */
  name: string;
  /** For a test's name: "default-625 at 1/5 rate" (", CPU share 1/5" when scaled). */
  label: string;
  divisor: number;
}

export function scaledProfile(
  base: LabProfile | LabProfileInput | string,
  divisor: number,
  options: { cpu?: "kept" | "scaled"; name?: string } = {},
): ScaledProfile {
  if (!Number.isInteger(divisor) || divisor < 1)
    throw new Error(`divisor: ${divisor} is not allowed (an integer >= 1: the profile runs at 1/divisor)`);
  const source = typeof base === "string" ? builtIn(base) : labProfileSchema.parse(base);
  const rate = (megabitsPerSecond: number) => megabitsPerSecond / divisor;
  const bytes = (count: number) => Math.round(count / divisor);
  const curve = (points: LabProfile["download"]) =>
    points.map((point) => ({ memoryMb: point.memoryMb, megabitsPerSecond: rate(point.megabitsPerSecond) }));
  const cpu = options.cpu ?? "kept";
  const name = options.name ?? `${source.name}-1in${divisor}`;
  const profile = labProfileSchema.parse({
    ...source,
    name,
    description: `${source.name} at 1/${divisor} of its rates and bytes (times kept${cpu === "scaled" ? ", CPU share scaled" : ""}): ${source.description}`,
    download: curve(source.download),
    upload: curve(source.upload),
    burst:
      source.burst === null
        ? null
        : {
            peakMegabitsPerSecond: rate(source.burst.peakMegabitsPerSecond),
            ...(source.burst.bytes !== undefined
              ? { bytes: bytes(source.burst.bytes) }
              : { seconds: source.burst.seconds }),
          },
    s3ConnectionBytesPerSecond:
      source.s3ConnectionBytesPerSecond === null ? null : bytes(source.s3ConnectionBytesPerSecond),
    flowMegabitsPerSecond: source.flowMegabitsPerSecond === null ? null : rate(source.flowMegabitsPerSecond),
    hostMegabitsPerSecond: source.hostMegabitsPerSecond === null ? null : rate(source.hostMegabitsPerSecond),
    mbPerVcpu: cpu === "scaled" ? source.mbPerVcpu * divisor : source.mbPerVcpu,
  });
  const label = `${source.name} at 1/${divisor} rate${cpu === "scaled" ? `, CPU share 1/${divisor}` : ""}`;
  return { profile, name, label, divisor };
}

/**
 * A size in MiB at 1/divisor (an S3 object, chunk or part scaled with its profile), refused
 * unless it stays a whole number of at least 1 MiB: a fraction would change the transfer's shape.
 */
export function scaledMib(mib: number, divisor: number, what: string): number {
  const scaled = mib / divisor;
  if (!Number.isInteger(scaled) || scaled < 1)
    throw new Error(`divisor: ${divisor} does not divide ${what} of ${mib} MiB into whole MiB (at least 1)`);
  return scaled;
}

function builtIn(name: string): LabProfile {
  const found = builtInProfiles.find((profile) => profile.name === name);
  if (!found)
    throw new Error(
      `profile: "${name}" is not a built-in lab profile (allowed: ${builtInProfiles.map((p) => p.name).join(", ")})`,
    );
  return found;
}
