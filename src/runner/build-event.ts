import type { AgentEventInput } from "../agent/event.js";
import type { Cell } from "../plan/cell.js";
import type { ProbeEndpoints } from "./platform.js";

export const mebibyte = 1_048_576;

/** What the runner resolved before the invocation: the server port and the test object. */
export interface EventContext {
  runId: string;
  repetition: number;
  endpoints: ProbeEndpoints;
  iperf3Port?: number;
  s3ObjectKey?: string;
}

/**
 * The agent event for one invocation of a cell: the plan's probe parameters plus the target's
 * endpoints. Throws (with a message for the record) when the target lacks the peer the probe needs.
 */
export function buildEvent(cell: Cell, context: EventContext): AgentEventInput {
  const probe = cell.probe;
  switch (probe.kind) {
    case "info":
      return { probe: "info" };
    case "iperf3": {
      const server = context.endpoints.iperf3;
      if (!server) throw new MissingEndpointError("this target has no iperf3 server");
      if (context.iperf3Port === undefined) throw new Error("iperf3 port not assigned");
      return {
        probe: "iperf3",
        host: server.host,
        port: context.iperf3Port,
        timeSeconds: probe.timeSeconds,
        parallel: probe.parallel,
        reverse: probe.direction === "download",
        bidir: probe.direction === "bidir",
        omitSeconds: probe.omitSeconds,
        ...(server.auth ? { auth: server.auth } : {}),
      };
    }
    case "bucket": {
      const server = context.endpoints.iperf3;
      if (!server) throw new MissingEndpointError("this target has no iperf3 server");
      if (context.iperf3Port === undefined) throw new Error("iperf3 port not assigned");
      return {
        probe: "bucket",
        host: server.host,
        port: context.iperf3Port,
        direction: probe.direction,
        parallel: probe.parallel,
        intervalMs: probe.intervalMs,
        transferSeconds: probe.transferSeconds,
        gapsSeconds: probe.gapsSeconds,
        refillTransferSeconds: probe.refillTransferSeconds,
        ...(probe.restSeconds !== undefined ? { restSeconds: probe.restSeconds } : {}),
        ...(server.auth ? { auth: server.auth } : {}),
      };
    }
    case "s3-get": {
      const s3 = requireS3(context);
      if (context.s3ObjectKey === undefined) throw new Error("test object not resolved");
      return {
        probe: "s3-get",
        ...s3,
        key: context.s3ObjectKey,
        concurrency: probe.concurrency,
        chunkMib: probe.chunkMib,
      };
    }
    case "s3-put":
      return {
        probe: "s3-put",
        ...requireS3(context),
        key: `${context.endpoints.s3?.putKeyPrefix ?? "lambda-netbench/put/"}${context.runId}/${cell.id}-${context.repetition}`,
        sizeMib: probe.sizeMib,
        partMib: probe.partMib,
        concurrency: probe.concurrency,
      };
  }
}

function requireS3(context: EventContext) {
  const s3 = context.endpoints.s3;
  if (!s3) throw new MissingEndpointError("this target has no S3 endpoint");
  return {
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    region: s3.region,
    bucket: s3.bucket,
    pathStyle: s3.pathStyle,
    ...(s3.caPem ? { caPem: s3.caPem } : {}),
  };
}

export class MissingEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingEndpointError";
  }
}
