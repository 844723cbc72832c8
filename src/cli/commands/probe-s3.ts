import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import type { AgentResponse } from "../../agent/agent-response.js";
import { handleEvent } from "../../agent/handler.js";
import type { S3GetDetail } from "../../probes/s3/run-s3-get.js";
import type { S3PutDetail } from "../../probes/s3/run-s3-put.js";
import { printResponse } from "./print-response.js";

/**
 * `probe s3-get` and `probe s3-put`: the S3 probes, through handleEvent like a Lambda
 * invocation. The CA file is read here and its content passed on (the agent has no files).
 */
export function registerS3ProbeCommands(probe: Command): void {
  withCommonOptions(
    probe
      .command("s3-get")
      .description("download one object with parallel ranged GETs into a null sink")
      .option(
        "--concurrency <n|auto>",
        "parallel connections, or auto (add while each one still raises throughput)",
        "10",
      )
      .option("--chunk-mib <mib>", "bytes per ranged GET, in MiB", number("--chunk-mib"), 16),
  ).action(async (options: CommonOptions & { concurrency: string; chunkMib: number }) => {
    const event = {
      probe: "s3-get",
      ...commonEvent(options),
      concurrency: options.concurrency === "auto" ? "auto" : integer("--concurrency")(options.concurrency),
      chunkMib: options.chunkMib,
    };
    printResponse(await handleEvent(event), options.json === true, describeGet);
  });

  withCommonOptions(
    probe
      .command("s3-put")
      .description("create an object by multipart upload of generated incompressible data, verified by HEAD")
      .requiredOption("--size-mib <mib>", "object size in MiB", number("--size-mib"))
      .option("--part-mib <mib>", "part size in MiB (>= 5)", number("--part-mib"), 64)
      .option("--concurrency <n>", "parts in flight", integer("--concurrency"), 8),
  ).action(async (options: CommonOptions & { sizeMib: number; partMib: number; concurrency: number }) => {
    const event = {
      probe: "s3-put",
      ...commonEvent(options),
      sizeMib: options.sizeMib,
      partMib: options.partMib,
      concurrency: options.concurrency,
    };
    printResponse(await handleEvent(event), options.json === true, describePut);
  });
}

/** Where the object is and how to reach it: the options every command on an S3 object takes. */
export interface S3ObjectOptions {
  endpoint?: string;
  region?: string;
  bucket: string;
  key: string;
  pathStyle?: boolean;
  /** false with --no-sign-request (commander's negated option). */
  signRequest: boolean;
  caFile?: string;
}

interface CommonOptions extends S3ObjectOptions {
  maxRetries?: number;
  deadlineSeconds?: number;
  requestTimeoutMs?: number;
  intervalMs?: number;
  json?: boolean;
}

function withCommonOptions(command: Command): Command {
  return command
    .option("--endpoint <url>", "S3-compatible endpoint URL (default: AWS S3 of --region)")
    .option("--region <region>", "region to sign for (default: AWS_REGION, else us-east-1)")
    .requiredOption("--bucket <bucket>", "bucket name")
    .requiredOption("--key <key>", "object key")
    .option("--path-style", "path-style addressing (https://host/bucket/key)")
    .option(
      "--no-sign-request",
      "anonymous requests, unsigned, for a public bucket or object (needs no credentials)",
    )
    .option("--ca-file <pem>", "CA bundle (PEM) to trust for TLS to the endpoint")
    .option("--max-retries <n>", "retries of one request", integer("--max-retries"))
    .option("--deadline-seconds <s>", "the whole probe's time limit", number("--deadline-seconds"))
    .option("--request-timeout-ms <ms>", "idle limit of one request", integer("--request-timeout-ms"))
    .option("--interval-ms <ms>", "sample interval", integer("--interval-ms"))
    .option("--json", "print the result as one JSON object");
}

function commonEvent(options: CommonOptions): Record<string, unknown> {
  const event: Record<string, unknown> = {
    bucket: options.bucket,
    key: options.key,
    region: options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "us-east-1",
    pathStyle: options.pathStyle === true,
    signRequest: options.signRequest !== false,
  };
  if (options.endpoint !== undefined) event.endpoint = options.endpoint;
  if (options.caFile !== undefined) event.caPem = readCaFile(options.caFile);
  if (options.maxRetries !== undefined) event.maxRetries = options.maxRetries;
  if (options.deadlineSeconds !== undefined) event.deadlineSeconds = options.deadlineSeconds;
  if (options.requestTimeoutMs !== undefined) event.requestTimeoutMs = options.requestTimeoutMs;
  if (options.intervalMs !== undefined) event.intervalMs = options.intervalMs;
  return event;
}

export function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, "utf8");
  } catch (error) {
    throw new InvalidArgumentError(`--ca-file: cannot read ${path}: ${(error as Error).message}`);
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    throw new InvalidArgumentError(`--ca-file: ${path} holds no PEM certificate`);
  return pem;
}

export function number(flag: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === "" || !Number.isFinite(parsed))
      throw new InvalidArgumentError(`${flag}: not a number: ${value}`);
    return parsed;
  };
}

export function integer(flag: string): (value: string) => number {
  return (value) => {
    const parsed = number(flag)(value);
    if (!Number.isInteger(parsed)) throw new InvalidArgumentError(`${flag}: not an integer: ${value}`);
    return parsed;
  };
}

function describeGet(response: AgentResponse): string {
  const detail = (response as { detail: S3GetDetail }).detail;
  const ttfb = detail.ttfb;
  const ms = (seconds: number | null) => (seconds === null ? "-" : `${(seconds * 1000).toFixed(1)} ms`);
  return [
    `s3-get s3://${detail.bucket}/${detail.key} (${detail.endpoint})`,
    `  ${detail.bytes} bytes in ${detail.seconds.toFixed(3)} s = ${detail.mbps.toFixed(1)} Mbit/s over ${detail.connections} connection(s)${detail.concurrency === "auto" ? " (auto)" : ""}, ${detail.parts} parts of ${detail.chunkBytes / 1_048_576} MiB`,
    `  CPU ${detail.cpuSeconds.toFixed(3)} s (${detail.cpuSecondsPerGib.toFixed(3)} s/GiB), retries ${detail.retries}, retransmits ${detail.retransmits ?? "n/a"}`,
    `  time to first byte per part: p50 ${ms(ttfb.p50Seconds)}, p90 ${ms(ttfb.p90Seconds)}, max ${ms(ttfb.maxSeconds)}`,
  ].join("\n");
}

function describePut(response: AgentResponse): string {
  const detail = (response as { detail: S3PutDetail }).detail;
  return [
    `s3-put s3://${detail.bucket}/${detail.key} (${detail.endpoint})`,
    `  ${detail.bytes} bytes in ${detail.parts} parts: ${detail.seconds.toFixed(3)} s to CompleteMultipartUpload's answer = ${detail.mbps.toFixed(1)} Mbit/s (${detail.totalSeconds.toFixed(3)} s with create and HEAD)`,
    `  CPU ${detail.cpuSeconds.toFixed(3)} s (${detail.cpuSecondsPerGib.toFixed(3)} s/GiB), retries ${detail.retries}, retransmits ${detail.retransmits ?? "n/a"}`,
    `  verified by HEAD: ${detail.verified.sizeBytes} bytes, ETag ${detail.verified.etag}`,
  ].join("\n");
}
