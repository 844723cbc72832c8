import { z } from "zod";
import { plannedProbeCommon } from "../plan-fields.js";
import { definePlannedProbe, defineProbe } from "../probe-descriptor.js";
import {
  allocateEventSchema,
  cpuBurnEventSchema,
  infoEventSchema,
  tcpConnectEventSchema,
} from "./options.js";

/** The probes that move no data: info (in plans too), and the lab's proofs of its CPU share and memory limit. */

export const infoSpecSchema = z.object({ kind: z.literal("info"), ...plannedProbeCommon }).strict();

export const infoProbe = definePlannedProbe({
  name: "info",
  eventSchema: infoEventSchema,
  peer: null,
  plan: {
    specSchema: infoSpecSchema,
    entrySchema: infoSpecSchema,
    expandEntry: (entry) => [entry],
    label: () => "info",
    names: () => ({ family: "info", short: "info" }),
    buildEvent: () => ({ probe: "info" as const }),
    estimate: () => ({ seconds: 0, serverBytes: 0 }),
    directions: () => [],
    movesData: false,
    streams: null,
    testObjectBytes: () => null,
    transfer: () => null,
  },
});

export const cpuBurnProbe = defineProbe({
  name: "cpu-burn",
  eventSchema: cpuBurnEventSchema,
  peer: null,
  plan: null,
});

export const allocateProbe = defineProbe({
  name: "allocate",
  eventSchema: allocateEventSchema,
  peer: null,
  plan: null,
});

export const tcpConnectProbe = defineProbe({
  name: "tcp-connect",
  eventSchema: tcpConnectEventSchema,
  peer: null,
  plan: null,
});
