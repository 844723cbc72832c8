import { z } from "zod";

/** Options of the probes that move no data: info, and the lab's proofs of the CPU share and memory limit. */

export const infoEventSchema = z.object({ probe: z.literal("info") }).strict();

export const cpuBurnEventSchema = z
  .object({ probe: z.literal("cpu-burn"), seconds: z.number().min(0.1).max(60).default(3) })
  .strict();

export const allocateEventSchema = z
  .object({ probe: z.literal("allocate"), mib: z.number().int().min(1).max(65_536) })
  .strict();

export type InfoEvent = z.output<typeof infoEventSchema>;
export type CpuBurnEvent = z.output<typeof cpuBurnEventSchema>;
export type AllocateEvent = z.output<typeof allocateEventSchema>;
