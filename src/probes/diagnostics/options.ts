import { z } from "zod";

/** Options of the probes that move no data: info, and the lab's proofs of the CPU share and memory limit. */

export const infoEventSchema = z.object({ probe: z.literal("info") }).strict();

export const cpuBurnEventSchema = z
  .object({ probe: z.literal("cpu-burn"), seconds: z.number().min(0.1).max(60).default(3) })
  .strict();

export const allocateEventSchema = z
  .object({ probe: z.literal("allocate"), mib: z.number().int().min(1).max(65_536) })
  .strict();

/**
 * One TCP connection from inside the function to a host and port, closed at once: whether the
 * function's network reaches the iperf3 server (the preflight asks when the operator's own
 * machine cannot, as corporate egress seldom lets TCP 5201 out).
 */
export const tcpConnectEventSchema = z
  .object({
    probe: z.literal("tcp-connect"),
    host: z.string().min(1).max(253),
    port: z.number().int().min(1).max(65_535),
    timeoutSeconds: z.number().min(0.5).max(30).default(5),
  })
  .strict();

export type InfoEvent = z.output<typeof infoEventSchema>;
export type CpuBurnEvent = z.output<typeof cpuBurnEventSchema>;
export type AllocateEvent = z.output<typeof allocateEventSchema>;
export type TcpConnectEvent = z.output<typeof tcpConnectEventSchema>;
