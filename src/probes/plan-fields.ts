import { z } from "zod";

// The pieces a probe's plan side is built of: fields every probe takes, list axes, sizes.

/** Fields every probe of a plan takes beside its own parameters. */
export const planRepetitionsSchema = z.number().int().min(1).max(1_000);
export const plannedProbeCommon = {
  /** Overrides the plan's repetitions for this probe (e.g. 1 for single-stream S3). */
  repetitions: planRepetitionsSchema.optional(),
  /** Free text shown in reports instead of the generated label. */
  label: z.string().min(1).max(60).optional(),
};

/**
 * A value, or a list of them: a list is an axis (like memory), one probe per value, in the order
 * given. Distinct values only, so each value is one cell.
 */
export function oneOrList<T extends z.ZodType>(single: T) {
  return z.union([
    single,
    z
      .array(single)
      .min(1, "at least one value")
      .refine((values) => new Set(values).size === values.length, "values must be distinct"),
  ]);
}

/**
 * One spec per value of a listed parameter; a single value stays the very same spec, so the
 * cell ids of plans without lists never change. A label gets the value appended (`suffix`), so
 * the cells of a sweep stay apart in reports.
 */
export function expandList<Spec>(
  entry: { label?: string | undefined },
  parameter: string,
  suffix: (value: string | number) => string,
): Spec[] {
  const values = (entry as Record<string, unknown>)[parameter];
  if (!Array.isArray(values)) return [entry as unknown as Spec];
  return values.map(
    (value) =>
      ({
        ...entry,
        [parameter]: value,
        ...(entry.label ? { label: `${entry.label}${suffix(value)}` } : {}),
      }) as unknown as Spec,
  );
}

/** Bytes in a MiB: the unit of every object, chunk and part size a plan gives. */
export const mebibyte = 1_048_576;

/** A sized transfer's estimate: its bytes at the rate, none of them through the iperf3 server. */
export function sizedTransferEstimate(
  bytes: number,
  bytesPerSecond: number,
): { seconds: number; serverBytes: number } {
  return { seconds: bytes / bytesPerSecond, serverBytes: 0 };
}
