import { z } from "zod";

/** The sampling interval every data probe takes (IntervalSampler), milliseconds. */
export const intervalMsOption = z.number().int().min(10).max(10_000).default(250);
