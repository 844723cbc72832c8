import {
  DeleteAliasCommand,
  DeleteFunctionCommand,
  GetFunctionConfigurationCommand,
  type LambdaClient,
  PublishVersionCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  waitUntilFunctionUpdatedV2,
} from "@aws-sdk/client-lambda";
import type { Architecture } from "../../plan/architecture.js";
import { type BackoffOptions, withBackoff } from "../../probes/retry-backoff.js";
import type { EnvironmentVariant } from "../../runner/platform.js";
import { conflictErrorNames, defaultBackoff, errorName, isThrottling } from "./backoff.js";
import { listAliases, listPublishedVersions, pointAlias } from "./function-aliases.js";
import { memoryLimitAdvice, refusedMemoryLimit } from "./memory-limit.js";
import { functionName as agentFunctionName, aliasName } from "./naming.js";

/**
 * One published version per memory size and architecture, each behind an alias, so sizes
 * run in parallel (the approach of AWS Lambda Power Tuning). $LATEST is switched step by
 * step: update -> wait until LastUpdateStatus is Successful -> publish -> point the alias.
 */
export interface VersionOptions {
  /** Where the agent zip is, to switch the architecture (a code property). */
  code: { bucket: string; key: string };
  waiter: { minDelaySeconds: number; maxDelaySeconds: number; maxWaitSeconds: number };
  backoff?: Partial<BackoffOptions>;
  log?: (line: string) => void;
  /** Dry run: changes are held back by the recorder, so there is nothing to wait for. */
  dryRun?: boolean;
  /** The function whose versions these are: the agent (default) or its VPC variant. */
  functionName?: string;
  /**
   * Point the run's alias per variant at its version (default). A schedule points its own
   * aliases instead, so it leaves none of the run's behind.
   */
  pointRunAliases?: boolean;
  /**
   * $LATEST's memory and architecture as the stack sets them (its outputs): what $LATEST is
   * restored to afterwards. Without them, what $LATEST has when the run starts, which a killed
   * run may have left at one of its sizes.
   */
  stackLatest?: { memoryMb?: number | undefined; arch?: string | undefined };
}

export interface PublishedVariant {
  variant: EnvironmentVariant;
  alias: string;
  version: string;
}

/**
 * A Lambda call that may meet "an update is in progress" (ResourceConflictException) or a
 * function not active yet: each wait for the function's update to finish (LastUpdateStatus no
 * longer InProgress) and then go on, for as long as the waiter would wait; throttling is
 * retried with backoff (the clients retry it too; the policy here counts the retries in the log).
 */
async function retrying<T>(
  lambda: LambdaClient,
  operation: () => Promise<T>,
  options: Pick<VersionOptions, "waiter" | "backoff" | "log" | "dryRun" | "functionName">,
): Promise<T> {
  const deadline = Date.now() + options.waiter.maxWaitSeconds * 1000;
  for (;;) {
    try {
      return (
        await withBackoff(operation, {
          ...defaultBackoff,
          retryable: isThrottling,
          onRetry: (error, attempt, delayMs) =>
            options.log?.(`retry ${attempt} after ${errorName(error)} in ${delayMs} ms`),
          ...options.backoff,
        })
      ).value;
    } catch (error) {
      if (!conflictErrorNames.has(errorName(error)) || Date.now() > deadline) throw error;
      options.log?.(
        `${options.functionName ?? agentFunctionName} is being updated (${errorName(error)}): waiting for its update to finish`,
      );
      await waitUpdated(lambda, options);
    }
  }
}

async function waitUpdated(
  lambda: LambdaClient,
  options: Pick<VersionOptions, "waiter" | "dryRun" | "functionName">,
): Promise<void> {
  if (options.dryRun) return;
  const functionName = options.functionName ?? agentFunctionName;
  await waitUntilFunctionUpdatedV2(
    {
      client: lambda,
      minDelay: options.waiter.minDelaySeconds,
      maxDelay: options.waiter.maxDelaySeconds,
      maxWaitTime: options.waiter.maxWaitSeconds,
    },
    { FunctionName: functionName },
  );
}

export async function publishVariants(
  lambda: LambdaClient,
  variants: EnvironmentVariant[],
  options: VersionOptions,
): Promise<PublishedVariant[]> {
  const functionName = options.functionName ?? agentFunctionName;
  const published: PublishedVariant[] = [];
  const byArch = new Map<Architecture, number[]>();
  for (const variant of variants) {
    const sizes = byArch.get(variant.arch) ?? [];
    if (!sizes.includes(variant.memoryMb)) sizes.push(variant.memoryMb);
    byArch.set(variant.arch, sizes);
  }
  let initial: { memoryMb: number | undefined; arch: string | undefined } | null = null;
  let latest: { memoryMb: number | undefined; arch: string | undefined } = {
    memoryMb: undefined,
    arch: undefined,
  };
  for (const [arch, sizes] of byArch) {
    const current = await retrying(
      lambda,
      () => lambda.send(new GetFunctionConfigurationCommand({ FunctionName: functionName })),
      options,
    );
    initial ??= {
      memoryMb: options.stackLatest?.memoryMb ?? current.MemorySize,
      arch: options.stackLatest?.arch ?? current.Architectures?.[0],
    };
    latest = { memoryMb: current.MemorySize, arch: current.Architectures?.[0] };
    if (current.Architectures?.[0] !== arch) await switchArchitecture(lambda, arch, options, "to");
    for (const memoryMb of sizes) {
      await retrying(
        lambda,
        () =>
          lambda.send(
            new UpdateFunctionConfigurationCommand({ FunctionName: functionName, MemorySize: memoryMb }),
          ),
        options,
      ).catch((error: unknown) => {
        const limit = refusedMemoryLimit(error);
        throw limit === undefined ? error : new Error(memoryLimitAdvice(memoryMb, limit), { cause: error });
      });
      await waitUpdated(lambda, options);
      const version = await retrying(
        lambda,
        () =>
          lambda.send(
            new PublishVersionCommand({
              FunctionName: functionName,
              Description: `lambda-netbench ${memoryMb} MB ${arch}`,
            }),
          ),
        options,
      );
      if (options.dryRun) version.Version ??= "(new version)";
      if (!version.Version) throw new Error(`PublishVersion returned no version for ${memoryMb} MB ${arch}`);
      if (version.MemorySize !== undefined && version.MemorySize !== memoryMb)
        throw new Error(
          `published version ${version.Version} has ${version.MemorySize} MB, expected ${memoryMb} MB`,
        );
      latest = { memoryMb, arch };
      const alias = aliasName(memoryMb, arch);
      if (options.pointRunAliases !== false) {
        await pointAlias(lambda, { functionName, alias, version: version.Version }, (call) =>
          retrying(lambda, call, options),
        );
        options.log?.(`${alias} -> version ${version.Version}`);
      }
      published.push({ variant: { memoryMb, arch }, alias, version: version.Version });
    }
  }
  if (initial) await restoreLatest(lambda, initial, latest, options);
  return published;
}

/** $LATEST's values as the stack's outputs give them (FunctionMemoryMb from stacks deployed since it exists). */
export function latestFromStackOutputs(outputs: Record<string, string>): VersionOptions["stackLatest"] {
  const memoryMb = Number(outputs.FunctionMemoryMb);
  return {
    memoryMb: Number.isInteger(memoryMb) && memoryMb > 0 ? memoryMb : undefined,
    arch: outputs.FunctionArchitecture,
  };
}

/** $LATEST's code for `arch` (an architecture change is a code update in Lambda), then waits. */
async function switchArchitecture(
  lambda: LambdaClient,
  arch: Architecture,
  options: VersionOptions,
  words: "to" | "back to",
): Promise<void> {
  const functionName = options.functionName ?? agentFunctionName;
  options.log?.(`switching ${functionName} ${words} ${arch}`);
  await retrying(
    lambda,
    () =>
      lambda.send(
        new UpdateFunctionCodeCommand({
          FunctionName: functionName,
          S3Bucket: options.code.bucket,
          S3Key: options.code.key,
          Architectures: [arch],
        }),
      ),
    options,
  );
  await waitUpdated(lambda, options);
}

/**
 * $LATEST back to the memory and architecture it had (the stack template's): the published
 * versions keep theirs, and the next deploy must not find $LATEST drifted to the last size.
 */
async function restoreLatest(
  lambda: LambdaClient,
  initial: { memoryMb: number | undefined; arch: string | undefined },
  latest: { memoryMb: number | undefined; arch: string | undefined },
  options: VersionOptions,
): Promise<void> {
  const functionName = options.functionName ?? agentFunctionName;
  if (initial.arch && initial.arch !== latest.arch)
    await switchArchitecture(lambda, initial.arch as Architecture, options, "back to");
  if (initial.memoryMb !== undefined && initial.memoryMb !== latest.memoryMb) {
    await retrying(
      lambda,
      () =>
        lambda.send(
          new UpdateFunctionConfigurationCommand({
            FunctionName: functionName,
            MemorySize: initial.memoryMb,
          }),
        ),
      options,
    );
    await waitUpdated(lambda, options);
  }
}

/** Deletes every alias and published version (not $LATEST). Returns how many versions went. */
export async function deletePublishedVersions(
  lambda: LambdaClient,
  options: Pick<VersionOptions, "backoff" | "log" | "functionName"> & {
    waiter?: VersionOptions["waiter"];
  } = {},
): Promise<{ aliases: number; versions: number; functionExisted: boolean }> {
  const functionName = options.functionName ?? agentFunctionName;
  const counts = { aliases: 0, versions: 0, functionExisted: true };
  const waiter = options.waiter ?? { minDelaySeconds: 1, maxDelaySeconds: 10, maxWaitSeconds: 300 };
  const retry = <T>(operation: () => Promise<T>) => retrying(lambda, operation, { ...options, waiter });
  try {
    const aliases = (await listAliases(lambda, functionName)).flatMap((alias) =>
      alias.Name ? [alias.Name] : [],
    );
    for (const name of aliases) {
      await retry(() => lambda.send(new DeleteAliasCommand({ FunctionName: functionName, Name: name })));
      counts.aliases++;
    }
    for (const version of await listPublishedVersions(lambda, functionName)) {
      await retry(() =>
        lambda.send(new DeleteFunctionCommand({ FunctionName: functionName, Qualifier: version })),
      );
      counts.versions++;
    }
  } catch (error) {
    if (errorName(error) === "ResourceNotFoundException") return { ...counts, functionExisted: false };
    throw error;
  }
  return counts;
}
