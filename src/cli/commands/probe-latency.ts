import { type Command, InvalidArgumentError } from "commander";
import type { AgentResponse } from "../../agent/agent-response.js";
import { handleEvent } from "../../agent/handler.js";
import type { LatencyMeasurement } from "../../probes/latency/measurement.js";
import {
  CONNECTION_MODES,
  DEFAULT_LATENCY_BYTES,
  DEFAULT_LATENCY_REQUESTS,
} from "../../probes/latency/options.js";
import type { LatencyDetail } from "../../probes/latency/run-latency.js";
import { formatMs, modeText, requestText } from "../../report/latency-section.js";
import { outputWidth, wrapEach } from "../../report/text-layout.js";
import { type Percentiles, percentiles } from "../../results/latency-percentiles.js";
import {
  LATENCY_PHASES,
  type ModeLatency,
  PHASE_LABELS,
  summarizeMode,
} from "../../results/latency-phases.js";
import { printResponse } from "./print-response.js";
import { integer, number, readCaFile, type S3ObjectOptions } from "./probe-s3.js";

interface LatencyCliOptions extends S3ObjectOptions {
  bytes: string;
  requests: number;
  warmup: number;
  connections: string;
  iperf3Host?: string;
  iperf3Port: number;
  iperf3Connects: number;
  deadlineSeconds?: number;
  requestTimeoutMs?: number;
  json?: boolean;
}

/** `lambda-netbench probe latency`: small GETs here and now, each phase timed, percentiles with their n. */
export function registerLatencyProbeCommand(probe: Command): void {
  probe
    .command("latency")
    .description(
      "time small S3 GETs, kept-alive and on new connections: look-up, connect, TLS, first and last byte (p50/p90/p99/max with n)",
    )
    .option("--endpoint <url>", "S3-compatible endpoint URL (default: AWS S3 of --region)")
    .option("--region <region>", "region to sign for (default: AWS_REGION, else us-east-1)")
    .requiredOption("--bucket <bucket>", "bucket name")
    .requiredOption("--key <key>", "object key")
    .option("--path-style", "path-style addressing (https://host/bucket/key)")
    .option("--no-sign-request", "anonymous requests, unsigned, for a public bucket or object")
    .option("--ca-file <pem>", "CA bundle (PEM) to trust for TLS to the endpoint")
    .option(
      "--bytes <n|whole>",
      "bytes per GET (a range of the object's first bytes), or whole",
      String(DEFAULT_LATENCY_BYTES),
    )
    .option(
      "--requests <n>",
      "measured GETs per connection mode",
      integer("--requests"),
      DEFAULT_LATENCY_REQUESTS,
    )
    .option("--warmup <n>", "GETs per mode sent first and not measured", integer("--warmup"), 2)
    .option(
      "--connections <modes>",
      `connection modes, comma-separated: ${CONNECTION_MODES.join(", ")}`,
      CONNECTION_MODES.join(","),
    )
    .option("--iperf3-host <host>", "also time TCP connects to this iperf3 server (the round trip)")
    .option("--iperf3-port <port>", "the iperf3 server's port", integer("--iperf3-port"), 5201)
    .option("--iperf3-connects <n>", "TCP connects to the iperf3 server", integer("--iperf3-connects"), 20)
    .option("--deadline-seconds <s>", "the whole probe's time limit", number("--deadline-seconds"))
    .option("--request-timeout-ms <ms>", "idle limit of one request", integer("--request-timeout-ms"))
    .option("--json", "print the percentiles of every phase (seconds) and the raw times as JSON")
    .action(async (options: LatencyCliOptions) => {
      let event: Record<string, unknown>;
      try {
        event = latencyEvent(options);
      } catch (error) {
        console.error(`lambda-netbench: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 2;
        return;
      }
      const response = await handleEvent(event);
      if (!response.ok || options.json !== true) {
        printResponse(response, options.json === true, describeLatency);
        return;
      }
      console.log(JSON.stringify(latencyJson(response), null, 2));
    });
}

function latencyEvent(options: LatencyCliOptions): Record<string, unknown> {
  const bytes = options.bytes === "whole" ? null : integer("--bytes")(options.bytes);
  const connections = options.connections.split(",").map((mode) => mode.trim());
  for (const mode of connections)
    if (!(CONNECTION_MODES as readonly string[]).includes(mode))
      throw new InvalidArgumentError(
        `--connections: ${mode} is not a mode (allowed: ${CONNECTION_MODES.join(", ")})`,
      );
  return {
    probe: "latency",
    bucket: options.bucket,
    key: options.key,
    region: options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "us-east-1",
    pathStyle: options.pathStyle === true,
    signRequest: options.signRequest !== false,
    bytes,
    requests: options.requests,
    warmupRequests: options.warmup,
    connections,
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    ...(options.caFile !== undefined ? { caPem: readCaFile(options.caFile) } : {}),
    ...(options.iperf3Host !== undefined
      ? { iperf3: { host: options.iperf3Host, port: options.iperf3Port, connects: options.iperf3Connects } }
      : {}),
    ...(options.deadlineSeconds !== undefined ? { deadlineSeconds: options.deadlineSeconds } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  };
}

interface LatencyResult {
  detail: LatencyDetail;
  measurement: LatencyMeasurement;
  modes: ModeLatency[];
  iperf3Connect: Percentiles | null;
}

function resultOf(response: AgentResponse): LatencyResult {
  if (!response.ok) throw new Error("resultOf: a failed response");
  const measurement = response.summary?.latency as LatencyMeasurement;
  return {
    detail: response.detail as LatencyDetail,
    measurement,
    modes: measurement.modes.flatMap((m) => summarizeMode([m]) ?? []),
    iperf3Connect: percentiles(measurement.iperf3Connect?.connectSeconds ?? []),
  };
}

/** --json: the percentiles of every phase per mode (seconds, null where n cannot support one), CPU, and the raw times. */
function latencyJson(response: AgentResponse): Record<string, unknown> {
  const { detail, measurement, modes, iperf3Connect } = resultOf(response);
  return {
    probe: "latency",
    endpoint: detail.endpoint,
    bucket: detail.bucket,
    key: detail.key,
    objectBytes: detail.objectBytes,
    rangeBytes: detail.rangeBytes,
    cpuSeconds: response.ok ? response.summary?.cpuSeconds : null,
    modes,
    iperf3Connect,
    requests: measurement,
  };
}

function describeLatency(response: AgentResponse): string {
  const { detail, modes, iperf3Connect } = resultOf(response);
  const size = requestText(detail.rangeBytes ?? detail.objectBytes ?? 0, detail.rangeBytes !== null);
  const lines = [`latency s3://${detail.bucket}/${detail.key} (${detail.endpoint}), ${size}`];
  const text = (p: Percentiles | null) =>
    p
      ? `p50 ${formatMs(p.p50Seconds)}  p90 ${formatMs(p.p90Seconds)}  p99 ${formatMs(p.p99Seconds)}  max ${formatMs(p.maxSeconds)}  (n ${p.n})`
      : "–";
  for (const mode of modes) {
    lines.push(
      `  ${modeText(mode.mode)}: ${mode.requests} requests, ${mode.failedRequests} failed, ${mode.connectionsOpened} connections opened; CPU ${mode.cpuSeconds.toFixed(3)} s (${mode.cpuCores?.toFixed(3) ?? "–"} cores over ${mode.wallSeconds.toFixed(2)} s)`,
    );
    for (const phase of LATENCY_PHASES) {
      const p = mode.phases[phase];
      if (p) lines.push(`    ${PHASE_LABELS[phase].padEnd(19)} ${text(p)}`);
    }
  }
  if (iperf3Connect) lines.push(`  TCP connect to the iperf3 server: ${text(iperf3Connect)}`);
  const unsupported = modes.some((m) => (m.phases.total?.unsupported.length ?? 0) > 0);
  if (unsupported) lines.push("  – : a percentile n cannot support (p90 needs n >= 10, p99 n >= 100)");
  return wrapEach(lines, outputWidth()).join("\n");
}
