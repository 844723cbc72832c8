import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import { errorName } from "./backoff.js";
import type { PlannedCallRecorder } from "./planned-calls.js";

/** What the preflight reports: one item per check and region, and the words for a failed call. */
export type PreflightCheck =
  | "credentials"
  | "region"
  | "quota"
  | "stack"
  | "server"
  | "concurrency"
  | "memory"
  // the `vpc` and `environments` axes (fleet-preflight.ts)
  | "vpc"
  | "fleet";

export interface PreflightItem {
  check: PreflightCheck;
  region: string | null;
  /**
   * "ok", "failed", "skipped" (could not be checked because an earlier item failed), or
   * "unchecked" (only a call that changes something could tell, which the preflight never
   * makes, or only a check from AWS's network, as the iperf3 port from behind a corporate
   * firewall: not a failure; the detail says why and what happens if it fails later).
   */
  status: "ok" | "failed" | "skipped" | "unchecked";
  detail: string;
}

export interface PreflightRegion {
  region: string;
  /** The plan has iperf3 cells here: the server must be ready. */
  needsServer: boolean;
  /** How long the run will use this region, seconds (the server must live past it). */
  durationSeconds: number;
  /** When the run reaches this region, seconds from now (regions run one after another). */
  startsInSeconds: number;
  /** The largest memory size planned here: checked against the account's limit when given. */
  largestMemoryMb?: number;
  /** The plan has `vpc: true` cells here; its largest fleet (`environments`). */
  vpc?: boolean;
  /** The plan has cells outside a VPC here (a `--vpc-only` stack cannot run them). */
  outsideVpc?: boolean;
  largestFleet?: number;
}

export interface PreflightOptions {
  regions: PreflightRegion[];
  parallelism: number;
  /** The agent code key a current stack has (agent/<sha256>.zip); null: not checked. Computed only once credentials are found. */
  expectedAgentCodeKey: () => string | null;
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** The command's --profile: the credential chain's and the clients' (without: the SDK's default). */
  profile?: string;
  recorder?: PlannedCallRecorder;
  // biome-ignore lint/suspicious/noExplicitAny: the SDK clients accept any smithy request handler
  requestHandler?: import("@smithy/types").RequestHandler<any, any>;
  /**
   * The command's dry run (the default): nothing is invoked. A real run's preflight may ask the
   * agent function (one Invoke of the tcp-connect event, which changes nothing) and still sends
   * no call that changes something.
   */
  dryRun?: boolean;
  /** Reaches the server's port (tests: a local stand-in). */
  handshake?: (host: string, port: number) => Promise<"ready" | "busy" | string>;
  now?: () => Date;
}

export interface PreflightResult {
  items: PreflightItem[];
  ok: boolean;
  account: string | null;
  /** What each region's reads found, for the run's estimate (regions not read are absent). */
  facts: PreflightFacts[];
}

/** What the preflight read in a region that the run's estimate prices. */
export interface PreflightFacts {
  region: string;
  /** The Lambda bandwidth quota in force, Mbit/s; null: not read. */
  quotaMbps: number | null;
  /** The instance type of the iperf3 server the stack runs, while its time-to-live lasts; null: none. */
  serverInstanceType: string | null;
}

/** Seconds of server life wanted beyond the run's estimate (set-up, retries, a slow region). */
export const serverMarginSeconds = 30 * 60;

export function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]?.slice(0, 200) ?? "";
}

/** A failed call in a few words: DNS and connection failures named as such. */
export function describeError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `no network or DNS (${code}: ${shortMessage(error)})`;
  if (
    code === "ECONNREFUSED" ||
    code === "ETIMEDOUT" ||
    code === "ECONNRESET" ||
    errorName(error) === "TimeoutError"
  )
    return `no connection (${String(code ?? errorName(error))})`;
  // the login lapsed: the message names the cause and how to log in again
  if (errorName(error) === "CredentialsExpiredError") return shortMessage(error);
  return `${errorName(error)}: ${shortMessage(error)}`;
}
