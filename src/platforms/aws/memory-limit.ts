import { type LambdaClient, paginateListVersionsByFunction } from "@aws-sdk/client-lambda";
import { errorName } from "./backoff.js";
import { functionName } from "./naming.js";

/**
 * New accounts are often held below Lambda's documented 10,240 MB (3,008 MB is common), and
 * GetAccountSettings does not show it: only a create or update with the size tells. The
 * preflight never writes, so it knows the answer only when a version of the function already
 * has the size; otherwise the size is "not checked", and the run's first update to it (before
 * any invocation) meets the refusal, which gets the advice below. Lambda refuses with
 * `ValidationException: 'MemorySize' value failed to satisfy constraint: Member must have value
 * less than or equal to 3008` (InvalidParameterValueException is matched too, for the same words).
 */
export const memoryWithoutIncreaseMb = 3_008;

export function memoryLimitAdvice(memoryMb: number, limitMb: number | null): string {
  return `${memoryMb} MB is refused in this account${limitMb !== null ? ` (at most ${limitMb} MB)` : ""}: new accounts are often held to ${memoryWithoutIncreaseMb} MB; ask AWS Support for a higher Lambda function memory limit (Support Center > Create case > Service limit increase > Lambda), or plan sizes up to ${limitMb ?? memoryWithoutIncreaseMb} MB`;
}

const refusalNames = new Set(["ValidationException", "InvalidParameterValueException"]);

/** The limit a refusal names ("less than or equal to 3008"), null when it names none, undefined when it is no memory refusal. */
export function refusedMemoryLimit(error: unknown): number | null | undefined {
  if (!refusalNames.has(errorName(error))) return undefined;
  const message = error instanceof Error ? error.message : "";
  if (!/memory ?size/i.test(message)) return undefined;
  const limit = /less than or equal to (\d+)/.exec(message)?.[1];
  return limit ? Number(limit) : null;
}

/**
 * Whether the account takes `memoryMb`, as far as reads tell: within what every account allows,
 * or a version of the function already has it; otherwise not checked, saying why.
 */
export async function checkMemoryAccepted(
  lambda: LambdaClient,
  memoryMb: number,
  /** The stack's FunctionName (the VPC function on a `--vpc-only` stack). */
  agentFunctionName: string = functionName,
): Promise<{ status: "ok" | "unchecked"; detail: string }> {
  if (memoryMb <= memoryWithoutIncreaseMb)
    return { status: "ok", detail: `${memoryMb} MB at most: within what every account allows` };
  for await (const page of paginateListVersionsByFunction(
    { client: lambda },
    { FunctionName: agentFunctionName },
  )) {
    for (const version of page.Versions ?? [])
      if ((version.MemorySize ?? 0) >= memoryMb)
        return {
          status: "ok",
          detail: `version ${version.Version} has ${version.MemorySize} MB: the account takes ${memoryMb} MB`,
        };
  }
  return {
    status: "unchecked",
    detail: `${memoryMb} MB not checked: accounts may be held to ${memoryWithoutIncreaseMb} MB and only an update of the function tells, which the preflight never makes; if the account refuses it, the run stops before its first invocation and says how to ask for more`,
  };
}
