import { z } from "zod";

/**
 * The memory sizes AWS Lambda accepts, MB (which AWS means as MiB): whole MB from 128 to
 * 10,240. The one definition every check of a memory size uses: the plan, lab profiles,
 * baselines, cost estimates and the AWS commands' input.
 */
export const MIN_MEMORY_MB = 128;
export const MAX_MEMORY_MB = 10_240;

/** The allowed range in words, for error messages. */
export const MEMORY_MB_RANGE = "128-10,240 MB";

export function isLambdaMemoryMb(memoryMb: number): boolean {
  return Number.isInteger(memoryMb) && memoryMb >= MIN_MEMORY_MB && memoryMb <= MAX_MEMORY_MB;
}

const outOfRange = `Lambda memory is ${MEMORY_MB_RANGE}`;

export const memoryMbSchema = z
  .number()
  .int(outOfRange)
  .min(MIN_MEMORY_MB, outOfRange)
  .max(MAX_MEMORY_MB, outOfRange);
