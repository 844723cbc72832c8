import {
  type AliasConfiguration,
  CreateAliasCommand,
  DeleteAliasCommand,
  DeleteFunctionCommand,
  GetAliasCommand,
  type LambdaClient,
  paginateListAliases,
  paginateListVersionsByFunction,
  UpdateAliasCommand,
} from "@aws-sdk/client-lambda";
import { errorName } from "./backoff.js";

/**
 * Lambda aliases and the published versions behind them, as the agent's variants, the
 * scheduled studies and teardown all handle them: point an alias (create or update), list
 * aliases and versions, remove an alias with its version.
 */

/** Runs one call; the caller's retry policy, or the call as it is. */
export type CallWrapper = <T>(call: () => Promise<T>) => Promise<T>;
const once: CallWrapper = (call) => call();

export interface AliasTarget {
  functionName: string;
  alias: string;
  version: string;
  /** Set when the alias is created (an existing alias keeps its description). */
  description?: string;
}

/** Points `alias` at `version`: updates it when it exists, creates it otherwise. */
export async function pointAlias(
  lambda: LambdaClient,
  target: AliasTarget,
  retry: CallWrapper = once,
): Promise<void> {
  const input = { FunctionName: target.functionName, Name: target.alias, FunctionVersion: target.version };
  let exists = true;
  try {
    await lambda.send(new GetAliasCommand({ FunctionName: target.functionName, Name: target.alias }));
  } catch (error) {
    if (errorName(error) !== "ResourceNotFoundException") throw error;
    exists = false;
  }
  if (exists) await retry(() => lambda.send(new UpdateAliasCommand(input)));
  else
    await retry(() =>
      lambda.send(
        new CreateAliasCommand({
          ...input,
          ...(target.description ? { Description: target.description } : {}),
        }),
      ),
    );
}

export async function listAliases(lambda: LambdaClient, functionName: string): Promise<AliasConfiguration[]> {
  const aliases: AliasConfiguration[] = [];
  for await (const page of paginateListAliases({ client: lambda }, { FunctionName: functionName }))
    aliases.push(...(page.Aliases ?? []));
  return aliases;
}

/** The function's published version numbers ($LATEST is not a published version). */
export async function listPublishedVersions(lambda: LambdaClient, functionName: string): Promise<string[]> {
  const versions: string[] = [];
  for await (const page of paginateListVersionsByFunction({ client: lambda }, { FunctionName: functionName }))
    for (const version of page.Versions ?? [])
      if (version.Version && version.Version !== "$LATEST") versions.push(version.Version);
  return versions;
}

/**
 * Deletes the alias, then the version it pointed at, unless another alias still points there
 * (Lambda refuses with ResourceConflictException; teardown removes that version later) or it
 * is gone already. True when the version was deleted.
 */
export async function deleteAliasAndVersion(
  lambda: LambdaClient,
  functionName: string,
  alias: { name: string; version: string },
): Promise<boolean> {
  await lambda.send(new DeleteAliasCommand({ FunctionName: functionName, Name: alias.name }));
  try {
    await lambda.send(new DeleteFunctionCommand({ FunctionName: functionName, Qualifier: alias.version }));
    return true;
  } catch (error) {
    if (["ResourceConflictException", "ResourceNotFoundException"].includes(errorName(error))) return false;
    throw error;
  }
}
