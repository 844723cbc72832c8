import type { HandlerExecutionContext, InitializeHandlerArguments, MiddlewareStack } from "@smithy/types";
import { backoffDelayMs } from "../../probes/retry-backoff.js";
import { errorName, isThrottling } from "./backoff.js";
import { CredentialsExpiredError, isExpiredCredentials } from "./expired-credentials.js";

/**
 * How every control-plane call of the tool meets a busy account: throttling is retried for a
 * long time (a real account's CloudFormation or EC2 answers "Rate exceeded" in bursts of tens
 * while other tools poll it too; the SDK's default three attempts ended a deploy), a 5xx burst or a
 * dropped connection for a while, and expired credentials become CredentialsExpiredError at once,
 * which pauses a run (nothing recorded, `--resume` goes on after a new login). One middleware
 * on every client, inside the planned-call recorder, so a call is recorded once however often it
 * is sent. Lambda Invoke is left alone: the invoker counts its own retries into the record.
 */
export interface CallRetryPolicy {
  /** Attempts in all for a throttled call. */
  throttleAttempts: number;
  /** Attempts in all after a 5xx answer or a connection failure. */
  transientAttempts: number;
  baseMs: number;
  capMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A command's calls: up to 15 attempts over about a minute and a half when throttled, 6 for a 5xx burst. */
export const patientRetries: CallRetryPolicy = {
  throttleAttempts: 15,
  transientAttempts: 6,
  baseMs: 250,
  capMs: 20_000,
};

/** Every call tried once: the expired-credentials pause still applies. */
export const noRetries: CallRetryPolicy = { throttleAttempts: 1, transientAttempts: 1, baseMs: 0, capMs: 0 };

const transientNames = new Set([
  "InternalError",
  "InternalFailure",
  "InternalServerError",
  "ServiceUnavailable",
  "ServiceUnavailableException",
  "ServiceException",
  "Unavailable",
  "RequestTimeout",
  "RequestTimeoutException",
  "TimeoutError",
]);
const transientCodes = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ESOCKETTIMEDOUT", "EAI_AGAIN"]);

export type CallFailureKind = "throttling" | "transient" | "final";

/** Whether a failed call is worth another attempt, and under which budget. */
export function classifyCallFailure(error: unknown): CallFailureKind {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  if (isThrottling(error) || status === 429) return "throttling";
  const code = (error as { code?: unknown })?.code;
  if (
    transientNames.has(errorName(error)) ||
    (status !== undefined && status >= 500) ||
    (typeof code === "string" && transientCodes.has(code))
  )
    return "transient";
  return "final";
}

/** A request body that is a stream cannot be sent twice. */
function hasStreamBody(input: unknown): boolean {
  const body = (input as { Body?: unknown } | undefined)?.Body;
  return typeof body === "object" && body !== null && typeof (body as { pipe?: unknown }).pipe === "function";
}

export function attachCallRetries(
  // biome-ignore lint/suspicious/noExplicitAny: one middleware for every client's input and output types
  client: { middlewareStack: MiddlewareStack<any, any>; config?: { profile?: string | undefined } },
  policy: CallRetryPolicy,
): void {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  client.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: one middleware for every client's input and output types
    (next: (args: InitializeHandlerArguments<any>) => Promise<any>, context: HandlerExecutionContext) =>
      // biome-ignore lint/suspicious/noExplicitAny: one middleware for every client's input and output types
      async (args: InitializeHandlerArguments<any>) => {
        const once = context.commandName === "InvokeCommand" || hasStreamBody(args.input);
        // each kind has its own budget: a throttling burst followed by a 5xx burst is both
        const failures = { throttling: 0, transient: 0 };
        for (let attempt = 1; ; attempt++) {
          try {
            return await next(args);
          } catch (error) {
            if (isExpiredCredentials(error)) throw new CredentialsExpiredError(error, client.config?.profile);
            const kind = classifyCallFailure(error);
            if (once || kind === "final") throw error;
            failures[kind]++;
            const budget = kind === "throttling" ? policy.throttleAttempts : policy.transientAttempts;
            if (failures[kind] >= budget) throw error;
            await sleep(backoffDelayMs(attempt, policy.baseMs, policy.capMs));
          }
        }
      },
    { step: "initialize", name: "lambdaNetbenchCallRetries", priority: "low", override: true },
  );
}
