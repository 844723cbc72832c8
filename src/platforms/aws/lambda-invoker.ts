import { InvokeCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import type { AgentEventInput } from "../../agent/event.js";
import { type BackoffOptions, withBackoff } from "../../probes/retry-backoff.js";
import type { InvocationOutcome } from "../../results/invocation-outcome.js";
import { defaultBackoff, isThrottlingOrConflict } from "./backoff.js";
import { CredentialsExpiredError, isExpiredCredentials } from "./expired-credentials.js";
import { outcomeFromInvokeError, outcomeFromInvokeResult } from "./invocation-outcome.js";
import { functionName } from "./naming.js";

/**
 * Invokes the agent synchronously (RequestResponse) on a qualifier (an alias per memory size
 * and architecture, or $LATEST), retrying throttling and conflicts (a function still being
 * updated) with backoff and jitter. Every failure comes back as an outcome with its kind, with
 * the retries counted, except expired credentials: CredentialsExpiredError (the run pauses).
 */
export async function invokeAgent(
  lambda: LambdaClient,
  qualifier: string,
  event: AgentEventInput,
  options: { signal?: AbortSignal; backoff?: Partial<BackoffOptions>; functionName?: string } = {},
): Promise<InvocationOutcome & { retries: number }> {
  const startedAt = new Date().toISOString();
  const startMs = performance.now();
  const elapsed = () => (performance.now() - startMs) / 1000;
  let retries = 0;
  try {
    const { value } = await withBackoff(
      async (attempt) => {
        retries = attempt;
        return lambda.send(
          new InvokeCommand({
            FunctionName: options.functionName ?? functionName,
            Qualifier: qualifier,
            InvocationType: "RequestResponse",
            Payload: Buffer.from(JSON.stringify(event)),
          }),
          options.signal ? { abortSignal: options.signal } : {},
        );
      },
      { ...defaultBackoff, retryable: isThrottlingOrConflict, signal: options.signal, ...options.backoff },
    );
    return {
      ...outcomeFromInvokeResult(
        { statusCode: value.StatusCode, functionError: value.FunctionError, payload: value.Payload },
        startedAt,
        elapsed(),
      ),
      retries,
    };
  } catch (error) {
    // an expired login fails every later call too: stop the run instead of recording failures
    if (error instanceof CredentialsExpiredError) throw error;
    if (isExpiredCredentials(error)) throw new CredentialsExpiredError(error, lambda.config.profile);
    return { ...outcomeFromInvokeError(error, startedAt, elapsed()), retries };
  }
}
