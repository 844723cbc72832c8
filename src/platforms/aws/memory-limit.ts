import {
  type LambdaClient,
  paginateListVersionsByFunction,
  UpdateFunctionConfigurationCommand,
} from "@aws-sdk/client-lambda";
import { errorName } from "./backoff.js";
import { functionName } from "./naming.js";

/**
 * New accounts are often held below Lambda's documented 10,240 MB (3,008 MB is common), and
 * GetAccountSettings does not show it: only a create or update with the size refuses it. So
 * the preflight asks, without changing anything:
 * 1. has any version of the function (or $LATEST) already got the largest size planned? Then
 *    the account takes it.
 * 2. otherwise UpdateFunctionConfiguration with that size and a RevisionId that never matches:
 *    Lambda checks the parameters before the revision, so a refused size answers
 *    InvalidParameterValueException and an accepted one PreconditionFailedException, and in
 *    both cases nothing changes. Should an implementation apply it anyway, the memory is set
 *    back at once.
 */
export const memoryWithoutIncreaseMb = 3_008;

/** Never a real revision: the probe's update cannot apply. */
const impossibleRevisionId = "00000000-0000-0000-0000-000000000000";

export function memoryLimitAdvice(memoryMb: number, limitMb: number | null): string {
  return `${memoryMb} MB is refused in this account${limitMb !== null ? ` (at most ${limitMb} MB)` : ""}: new accounts are often held to ${memoryWithoutIncreaseMb} MB; ask AWS Support for a higher Lambda function memory limit (Support Center > Create case > Service limit increase > Lambda), or plan sizes up to ${limitMb ?? memoryWithoutIncreaseMb} MB`;
}

/** The limit a refusal names ("less than or equal to 3008"), or null. */
export function refusedMemoryLimit(error: unknown): number | null | undefined {
  if (errorName(error) !== "InvalidParameterValueException") return undefined;
  const message = error instanceof Error ? error.message : "";
  if (!/MemorySize/i.test(message)) return undefined;
  const limit = /less than or equal to (\d+)/.exec(message)?.[1];
  return limit ? Number(limit) : null;
}

export async function checkMemoryAccepted(
  lambda: LambdaClient,
  memoryMb: number,
): Promise<{ accepted: boolean; detail: string }> {
  if (memoryMb <= memoryWithoutIncreaseMb)
    return { accepted: true, detail: `${memoryMb} MB at most: within what every account allows` };
  let latestMemoryMb: number | undefined;
  for await (const page of paginateListVersionsByFunction(
    { client: lambda },
    { FunctionName: functionName },
  )) {
    for (const version of page.Versions ?? []) {
      if (version.Version === "$LATEST") latestMemoryMb = version.MemorySize;
      if ((version.MemorySize ?? 0) >= memoryMb)
        return {
          accepted: true,
          detail: `version ${version.Version} has ${version.MemorySize} MB: the account takes ${memoryMb} MB`,
        };
    }
  }
  try {
    await lambda.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: functionName,
        MemorySize: memoryMb,
        RevisionId: impossibleRevisionId,
      }),
    );
  } catch (error) {
    if (errorName(error) === "PreconditionFailedException")
      return { accepted: true, detail: `${memoryMb} MB accepted (asked without changing anything)` };
    const limit = refusedMemoryLimit(error);
    if (limit !== undefined) return { accepted: false, detail: memoryLimitAdvice(memoryMb, limit) };
    throw error;
  }
  // applied after all: put $LATEST back
  if (latestMemoryMb !== undefined)
    await lambda.send(
      new UpdateFunctionConfigurationCommand({ FunctionName: functionName, MemorySize: latestMemoryMb }),
    );
  return { accepted: true, detail: `${memoryMb} MB accepted` };
}
