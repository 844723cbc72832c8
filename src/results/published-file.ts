import { z } from "zod";

/**
 * What every file of figures published by others carries (results/baselines/*.json): its name,
 * a title, and the day its figures were transcribed, YYYY-MM-DD. Each file adds its own fields.
 */

export const transcribedOnSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** An entry's id inside such a file: lower-case words joined by hyphens. */
export const publishedIdSchema = z.string().regex(/^[a-z0-9-]+$/);

export function publishedFileSchema<Name extends string, Shape extends z.ZodRawShape>(
  name: Name,
  shape: Shape,
) {
  return z
    .object({ name: z.literal(name), title: z.string().min(1), transcribedOn: transcribedOnSchema, ...shape })
    .strict();
}

/** An entry that measured one transfer direction: its id, its source, and what and how it measured. */
export const publishedTransferFields = {
  id: publishedIdSchema,
  source: z.string().min(1),
  measured: z.string().min(1),
  direction: z.enum(["upload", "download"]),
};
