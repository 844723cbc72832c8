import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { AgentResponse } from "../../agent/agent-response.js";
import type { Iperf3ProbeDetail } from "../../probes/iperf3/run-probe.js";

export interface Iperf3CliOptions {
  host: string;
  port: string;
  time: string;
  parallel: string;
  reverse?: boolean;
  bidir?: boolean;
  omit: string;
  length: string;
  bytes: string;
  connectTimeout: string;
  interval: string;
  username?: string;
  passwordEnv?: string;
  rsaPublicKeyPath?: string;
  padding: string;
}

/** The iperf3 RSA authentication options (read by buildIperf3Event), for every command that talks to an iperf3 server. */
export function withIperf3AuthOptions(command: Command): Command {
  return command
    .option("--username <user>", "iperf3 RSA authentication: user name")
    .option("--password-env <VAR>", "environment variable holding the password (never a flag value)")
    .option("--rsa-public-key-path <pem>", "server's RSA public key (PEM)")
    .option("--padding <padding>", "RSA padding: pkcs1 (servers <= 3.16) or oaep (3.17+)", "oaep");
}

/**
 * Turns `probe iperf3` options into an agent event (validated later by handleEvent, which
 * names any bad field). The password comes from an environment variable so it never sits
 * in shell history or process listings.
 */
export async function buildIperf3Event(
  options: Iperf3CliOptions,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, unknown>> {
  const event: Record<string, unknown> = {
    probe: "iperf3",
    host: options.host,
    port: Number(options.port),
    timeSeconds: Number(options.time),
    parallel: Number(options.parallel),
    reverse: options.reverse === true,
    bidir: options.bidir === true,
    omitSeconds: Number(options.omit),
    blockBytes: Number(options.length),
    byteLimit: Number(options.bytes),
    connectTimeoutMs: Number(options.connectTimeout),
    reportIntervalSeconds: Number(options.interval),
  };
  const authOptions = [options.username, options.passwordEnv, options.rsaPublicKeyPath];
  if (authOptions.some((value) => value !== undefined)) {
    if (authOptions.some((value) => value === undefined)) {
      throw new Error("authentication needs all of --username, --password-env and --rsa-public-key-path");
    }
    const variable = options.passwordEnv as string;
    const password = env[variable];
    if (password === undefined || password === "") {
      throw new Error(`--password-env: environment variable ${variable} is not set or empty`);
    }
    let publicKeyPem: string;
    try {
      publicKeyPem = await readFile(options.rsaPublicKeyPath as string, "utf8");
    } catch (error) {
      throw new Error(
        `--rsa-public-key-path: cannot read ${options.rsaPublicKeyPath}: ${(error as Error).message}`,
      );
    }
    event.auth = { username: options.username, password, publicKeyPem, padding: options.padding };
  }
  return event;
}

/** An iperf3-like summary: sender and receiver lines with Mbit/s (10^6 bit/s). */
export function formatIperf3Summary(response: AgentResponse): string {
  if (!response.ok) return "";
  const detail = response.detail as Iperf3ProbeDetail;
  const { end, start } = detail;
  const lines = [
    `Connecting to host ${start.connecting_to.host}, port ${start.connecting_to.port}` +
      ` (${start.test_start.num_streams} stream(s)${start.test_start.reverse ? ", reverse" : ""}${start.test_start.bidir ? ", bidir" : ""})`,
    "[ ID] Interval            Transfer        Bitrate",
  ];
  const line = (
    label: string,
    side: { seconds: number; bytes: number; bits_per_second: number; retransmits?: number },
    role: string,
  ) =>
    `[${label}] 0.00-${side.seconds.toFixed(2).padEnd(6)} sec  ${(side.bytes / 1_048_576).toFixed(1).padStart(9)} MiB  ${(
      side.bits_per_second / 1e6
    )
      .toFixed(1)
      .padStart(
        9,
      )} Mbit/s  ${role}${side.retransmits !== undefined ? `  (retransmits ${side.retransmits})` : ""}`;
  const directionLabel = end.sum_sent_bidir_reverse ? (start.test_start.bidir ? "TX-C" : "SUM") : "SUM";
  lines.push(line(directionLabel, end.sum_sent, "sender"));
  lines.push(line(directionLabel, end.sum_received, "receiver"));
  if (end.sum_sent_bidir_reverse && end.sum_received_bidir_reverse) {
    lines.push(line("RX-C", end.sum_sent_bidir_reverse, "sender"));
    lines.push(line("RX-C", end.sum_received_bidir_reverse, "receiver"));
  }
  const gib = (end.sum_sent.bytes + (end.sum_sent_bidir_reverse?.bytes ?? 0)) / 2 ** 30;
  lines.push(
    `CPU: ${detail.cpuSeconds.toFixed(2)} s (${gib > 0 ? (detail.cpuSeconds / gib).toFixed(2) : "-"} s/GiB); ` +
      `host ${end.cpu_utilization_percent.host_total.toFixed(1)} %, remote ${end.cpu_utilization_percent.remote_total.toFixed(1)} %; ` +
      `retransmits (namespace): ${detail.retransmits ?? "unknown"}`,
  );
  return lines.join("\n");
}
