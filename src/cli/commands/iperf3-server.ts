import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import { readFlowCapFile } from "../../probes/iperf3/flow-cap-file.js";
import { startIperf3Server } from "../../probes/iperf3/server.js";
import { parseAuthorizedUsers, type ServerAuth } from "../../probes/iperf3/server-auth.js";

interface Iperf3ServerCliOptions {
  port: number;
  bind?: string;
  rsaPrivateKeyPath?: string;
  authorizedUsersPath?: string;
  timeSkewThreshold: number;
  oneOff?: boolean;
  flowCap?: number;
  flowCapFile?: string;
}

function integerIn(name: string, min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`${name} must be an integer in ${min}..${max}`);
    }
    return parsed;
  };
}

function positiveNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0 || parsed > 100_000) {
      throw new InvalidArgumentError(`${name} must be a number of Mbit/s in (0, 100000]`);
    }
    return parsed;
  };
}

/** The per-flow cap to apply at the start of a test: the file's (re-read each test), else the flag's. */
function flowCapSource(options: Iperf3ServerCliOptions): (() => number | null) | undefined {
  const { flowCap, flowCapFile } = options;
  if (flowCap !== undefined && flowCapFile !== undefined) {
    throw new Error("--flow-cap and --flow-cap-file are alternatives; give one");
  }
  if (flowCapFile !== undefined) return () => readFlowCapFile(flowCapFile);
  if (flowCap !== undefined) return () => flowCap * 1e6;
  return undefined;
}

/**
 * `lambda-netbench iperf3-server --port P`: our pure-TypeScript iperf3 server (TCP), so the lab
 * and the tests need no system package. One test at a time; one log line per test on stderr.
 */
export function registerIperf3ServerCommand(program: Command): void {
  program
    .command("iperf3-server")
    .description("run an iperf3 server (TCP, one test at a time) that stock iperf3 clients can test against")
    .option(
      "-p, --port <port>",
      "TCP port to listen on (0 = any free port)",
      integerIn("--port", 0, 65_535),
      5201,
    )
    .option("-B, --bind <host>", "address to listen on (default: all)")
    .option("--rsa-private-key-path <pem>", "RSA private key (PEM) to decrypt client auth tokens")
    .option("--authorized-users-path <csv>", "iperf3 users file: user,sha256('{user}password') per line")
    .option(
      "--time-skew-threshold <seconds>",
      "allowed clock difference for auth tokens",
      integerIn("--time-skew-threshold", 0, 86_400),
      10,
    )
    .option("-1, --one-off", "serve one test, then exit")
    .option(
      "--flow-cap <Mbit/s>",
      "pace every data stream to at most this payload rate (emulates a per-flow cap)",
      positiveNumber("--flow-cap"),
    )
    .option(
      "--flow-cap-file <path>",
      'read the per-flow cap at each test start from a JSON file {"flowBitsPerSecond": N|null} (the lab\'s)',
    )
    .action(async (options: Iperf3ServerCliOptions) => {
      await runIperf3Server(options);
    });
}

function loadAuth(options: Iperf3ServerCliOptions): ServerAuth | undefined {
  const { rsaPrivateKeyPath, authorizedUsersPath } = options;
  if (rsaPrivateKeyPath === undefined && authorizedUsersPath === undefined) return undefined;
  if (rsaPrivateKeyPath === undefined || authorizedUsersPath === undefined) {
    throw new Error("--rsa-private-key-path and --authorized-users-path must be given together");
  }
  const privateKeyPem = readFileSync(rsaPrivateKeyPath, "utf8");
  if (!privateKeyPem.includes("PRIVATE KEY")) {
    throw new Error(`--rsa-private-key-path: ${rsaPrivateKeyPath} is not a PEM private key`);
  }
  const users = parseAuthorizedUsers(readFileSync(authorizedUsersPath, "utf8"));
  if (users.size === 0) {
    throw new Error(`--authorized-users-path: ${authorizedUsersPath} lists no user`);
  }
  return { privateKeyPem, users, skewSeconds: options.timeSkewThreshold };
}

async function runIperf3Server(options: Iperf3ServerCliOptions): Promise<void> {
  const auth = loadAuth(options);
  const flowCapBitsPerSecond = flowCapSource(options);
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} iperf3-server: ${line}\n`);
  let stopping = false;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const server = await startIperf3Server({
    port: options.port,
    ...(options.bind ? { host: options.bind } : {}),
    ...(auth ? { auth } : {}),
    ...(flowCapBitsPerSecond ? { flowCapBitsPerSecond } : {}),
    log,
    onTestEnd: () => {
      if (options.oneOff) stop("one test served (--one-off)");
    },
  });
  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${reason}`);
    void server.close().then(resolveStopped);
  }
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  log(
    `listening on ${options.bind ?? "all addresses"} port ${server.port}` +
      `${auth ? `, authentication required (${auth.users.size} user(s))` : ""}`,
  );
  await stopped;
}
