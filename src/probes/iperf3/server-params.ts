import { IperfErrno } from "./iperf-errno.js";
import { ServerFailure } from "./server-failure.js";
import { MAX_BLOCK_BYTES, MAX_OMIT_SECONDS, MAX_PARALLEL_STREAMS, MAX_TIME_SECONDS } from "./test-limits.js";

/** What the server takes from the client's parameter JSON (protocol doc section 3.2). */
export interface TestParams {
  timeSeconds: number;
  omitSeconds: number;
  /** Byte limit for the sending side (0 = none). */
  byteLimit: number;
  /** Block (write) limit for the sending side (0 = none). */
  blockLimit: number;
  /** Streams per direction. */
  parallel: number;
  blockBytes: number;
  reverse: boolean;
  bidirectional: boolean;
  noDelay: boolean;
  /** Sender pacing per stream in bit/s (0 = unlimited). */
  bandwidthBitsPerSecond: number;
  getServerOutput: boolean;
  authToken: string | undefined;
  clientVersion: string | undefined;
  /** Keys a C server would act on but we cannot (no setsockopt in Node), for the log. */
  ignored: string[];
}

const UNSUPPORTED_SOCKET_OPTIONS = ["window", "mss", "congestion", "tos", "flowlabel", "fqrate", "zerocopy"];

/**
 * Validates the parameter document. Keys are looked up case-insensitively and unknown keys are
 * ignored, as cJSON does; flags count by presence (section 3.3). Ranges follow upstream master,
 * with the same error codes, so nothing out of range can make us allocate or loop without bound.
 */
export function parseTestParams(document: unknown): TestParams {
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new ServerFailure(IperfErrno.IERECVPARAMS, "parameters are not a JSON object");
  }
  const keys = new Map<string, unknown>();
  for (const [key, value] of Object.entries(document)) keys.set(key.toLowerCase(), value);

  if (keys.has("udp") || keys.has("sctp")) {
    const protocol = keys.has("udp") ? "UDP" : "SCTP";
    throw new ServerFailure(IperfErrno.IEUNIMP, `${protocol} tests are not supported (TCP only)`);
  }
  const number = (key: string, fallback: number): number => {
    const value = keys.get(key);
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new ServerFailure(IperfErrno.IERECVPARAMS, `parameter "${key}" must be a number`);
    }
    return value;
  };
  const text = (key: string): string | undefined => {
    const value = keys.get(key);
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      throw new ServerFailure(IperfErrno.IERECVPARAMS, `parameter "${key}" must be a string`);
    }
    return value;
  };

  const timeSeconds = number("time", 10);
  if (timeSeconds < 0 || timeSeconds > MAX_TIME_SECONDS) {
    throw new ServerFailure(IperfErrno.IEDURATION, `time ${timeSeconds} s outside 0..${MAX_TIME_SECONDS}`);
  }
  const omitSeconds = number("omit", 0);
  if (omitSeconds < 0 || omitSeconds > MAX_OMIT_SECONDS) {
    throw new ServerFailure(IperfErrno.IEOMIT, `omit ${omitSeconds} s outside 0..${MAX_OMIT_SECONDS}`);
  }
  const parallel = Math.trunc(number("parallel", 1));
  if (parallel < 1 || parallel > MAX_PARALLEL_STREAMS) {
    throw new ServerFailure(
      IperfErrno.IENUMSTREAMS,
      `parallel ${parallel} outside 1..${MAX_PARALLEL_STREAMS} streams`,
    );
  }
  const blockBytes = Math.trunc(number("len", 131_072));
  if (blockBytes < 1 || blockBytes > MAX_BLOCK_BYTES) {
    throw new ServerFailure(IperfErrno.IEBLOCKSIZE, `len ${blockBytes} bytes outside 1..${MAX_BLOCK_BYTES}`);
  }
  const byteLimit = Math.trunc(number("num", 0));
  const blockLimit = Math.trunc(number("blockcount", 0));
  if (byteLimit < 0 || blockLimit < 0) {
    throw new ServerFailure(IperfErrno.IEENDCONDITIONS, "num and blockcount must not be negative");
  }
  const bandwidthBitsPerSecond = number("bandwidth", 0);
  if (bandwidthBitsPerSecond < 0) {
    throw new ServerFailure(IperfErrno.IERECVPARAMS, "bandwidth must not be negative");
  }
  return {
    timeSeconds,
    omitSeconds,
    byteLimit,
    blockLimit,
    parallel,
    blockBytes,
    reverse: keys.has("reverse"),
    bidirectional: keys.has("bidirectional"),
    noDelay: keys.has("nodelay"),
    bandwidthBitsPerSecond,
    getServerOutput: keys.has("get_server_output"),
    authToken: text("authtoken"),
    clientVersion: text("client_version"),
    ignored: UNSUPPORTED_SOCKET_OPTIONS.filter((key) => keys.has(key)),
  };
}
