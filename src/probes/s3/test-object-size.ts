import { z } from "zod";
import { mebibyte } from "../plan-fields.js";
import { S3_MAX_OBJECT_MIB } from "./options.js";

/**
 * The sizes a test object may have on every platform: what a plan can ask for (s3-get's
 * `objectMib`, a whole number of MiB) and the s3-put probe that creates it can write (1 MiB to
 * 5 TiB, S3's largest object). One rule, so a size the lab accepts is one AWS accepts too.
 */
export const MAX_TEST_OBJECT_MIB = S3_MAX_OBJECT_MIB;

/** Why `bytes` cannot be a test object's size, or null when it can. */
export function testObjectSizeProblem(bytes: number): string | null {
  const wholeMib = Number.isInteger(bytes) && bytes % mebibyte === 0;
  if (wholeMib && bytes >= mebibyte && bytes / mebibyte <= MAX_TEST_OBJECT_MIB) return null;
  return `bytes: ${bytes} is not allowed (allowed: a whole number of MiB, 1-${MAX_TEST_OBJECT_MIB.toLocaleString("en-US")} MiB)`;
}

/** A plan's object size, MiB (s3-get's test object, s3-put's upload): a test object's sizes; the study moved 1 GiB. */
export const objectMibSchema = z.number().int().min(1).max(MAX_TEST_OBJECT_MIB).default(1_024);
