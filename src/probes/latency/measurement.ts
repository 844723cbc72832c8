import type { ConnectionMode } from "./options.js";

/**
 * What the latency probe measured: raw per-request times only (the percentiles live with the
 * statistics, src/results/latency-percentiles.ts, so a record can be summarized again later).
 *
 * Every time is cumulative, in seconds from the request's start, the way curl's `-w` times are
 * (time_namelookup, time_connect, time_appconnect, time_pretransfer, time_starttransfer,
 * time_total): a new connection's request starts before its name look-up, a kept-alive one's
 * just before its request is written. A phase the request did not have is null (no look-up
 * for an IP address, no connect or TLS on a kept-alive connection, no TLS over http://).
 * Columns rather than one object per request: a record holds hundreds of requests.
 */
export interface RequestTimes {
  lookupEndSeconds: Array<number | null>;
  connectEndSeconds: Array<number | null>;
  tlsEndSeconds: Array<number | null>;
  /** The request head handed to the kernel. */
  sentSeconds: number[];
  /** The response's first byte read (after TLS decryption, as curl's time_starttransfer). */
  firstByteSeconds: number[];
  /** The body's last byte read. */
  lastByteSeconds: number[];
  /** Body bytes of each request. */
  bodyBytes: number[];
}

/** A request that failed without failing the probe (a reset, a stall, a 5xx): kept out of the times. */
export interface RequestFailure {
  kind: string;
  message: string;
}

export interface ModeMeasurement {
  mode: ConnectionMode;
  requests: RequestTimes;
  /**
   * Connections opened for the measured requests: 1 for kept-alive (plus one per connection the
   * server or a failure closed), one per request for new.
   */
  connectionsOpened: number;
  /** Failed measured requests (at most the first 5 are listed in `failures`). */
  failedRequests: number;
  failures: RequestFailure[];
  /** CPU (user + system) of the process over this mode's measured requests. */
  cpuSeconds: number;
  /** Wall time of this mode's measured requests (signing and gaps included). */
  wallSeconds: number;
}

export interface LatencyMeasurement {
  /** Bytes each GET asked for (a range of the object's first bytes); null: whole objects. */
  rangeBytes: number | null;
  /** Requests per mode sent before the measured ones and not counted. */
  warmupRequests: number;
  /** Whether the endpoint's host is a name (so new connections have a look-up phase). */
  hostIsName: boolean;
  tls: boolean;
  modes: ModeMeasurement[];
  /** TCP connects to the iperf3 server (connect, then close), seconds each; null when not asked. */
  iperf3Connect: { host: string; port: number; connectSeconds: number[]; failedConnects: number } | null;
}
