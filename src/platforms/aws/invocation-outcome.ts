import type { AgentResponse } from "../../agent/agent-response.js";
import type { InvocationFailureKind, InvocationOutcome } from "../../results/invocation-outcome.js";
import { errorName, isThrottling } from "./backoff.js";

/**
 * Turns what Lambda's Invoke returned (or threw) into an InvocationOutcome. Every failure
 * keeps its kind, so the runner records it instead of dropping it:
 * - FunctionError with `Runtime.OutOfMemory` (or a runtime killed by a signal) -> out-of-memory;
 * - FunctionError with `Sandbox.Timedout` / "Task timed out" -> timeout;
 * - any other FunctionError (Unhandled, Handled) -> function-error;
 * - throttling that outlasted the retries -> throttled; anything else -> platform.
 */
export interface InvokeResult {
  statusCode: number | undefined;
  functionError: string | undefined;
  payload: Uint8Array | undefined;
}

export function classifyFunctionError(payloadText: string): { kind: InvocationFailureKind; message: string } {
  let errorType = "";
  let errorMessage = payloadText;
  try {
    const parsed = JSON.parse(payloadText) as { errorType?: unknown; errorMessage?: unknown };
    if (typeof parsed.errorType === "string") errorType = parsed.errorType;
    if (typeof parsed.errorMessage === "string") errorMessage = parsed.errorMessage;
  } catch {
    // the runtime may return plain text; keep it as the message
  }
  const message = errorType ? `${errorType}: ${errorMessage}` : errorMessage;
  if (/OutOfMemory/i.test(errorType) || /signal: killed|out of memory|heap out of memory/i.test(errorMessage))
    return { kind: "out-of-memory", message };
  if (/Timedout|Timeout/i.test(errorType) || /Task timed out/i.test(errorMessage))
    return { kind: "timeout", message };
  return { kind: "function-error", message };
}

function isAgentResponse(value: unknown): value is AgentResponse {
  return typeof value === "object" && value !== null && typeof (value as { ok?: unknown }).ok === "boolean";
}

export function outcomeFromInvokeResult(
  result: InvokeResult,
  startedAt: string,
  durationSeconds: number,
): InvocationOutcome {
  const text = result.payload ? Buffer.from(result.payload).toString("utf8") : "";
  if (result.functionError)
    return { response: null, failure: classifyFunctionError(text), startedAt, durationSeconds };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isAgentResponse(parsed)) return { response: parsed, failure: null, startedAt, durationSeconds };
  } catch {
    // fall through: not the agent's JSON
  }
  return {
    response: null,
    failure: {
      kind: "platform",
      message: `status ${result.statusCode}: the function did not return the agent's JSON (${text.slice(0, 200)})`,
    },
    startedAt,
    durationSeconds,
  };
}

export function outcomeFromInvokeError(
  error: unknown,
  startedAt: string,
  durationSeconds: number,
): InvocationOutcome {
  const message = `${errorName(error)}: ${error instanceof Error ? error.message : String(error)}`;
  const kind: InvocationFailureKind = isThrottling(error)
    ? "throttled"
    : errorName(error) === "TimeoutError" || errorName(error) === "AbortError"
      ? "timeout"
      : "platform";
  return { response: null, failure: { kind, message }, startedAt, durationSeconds };
}
