import type { Iperf3ClientOptions } from "../../../src/probes/iperf3/client.js";

/**
 * Our client's options for a short test against a loopback server: 1 s, one stream, normal
 * direction, 128 KiB blocks, 1 s reports. Each test file overrides only what it is about.
 */
export function loopbackClientOptions(
  port: number,
  overrides: Partial<Iperf3ClientOptions> = {},
): Iperf3ClientOptions {
  return {
    host: "127.0.0.1",
    port,
    timeSeconds: 1,
    parallel: 1,
    reverse: false,
    bidir: false,
    omitSeconds: 0,
    blockBytes: 131_072,
    byteLimit: 0,
    connectTimeoutMs: 2_000,
    reportIntervalSeconds: 1,
    ...overrides,
  };
}
