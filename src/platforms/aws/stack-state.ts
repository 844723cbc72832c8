import {
  type CloudFormationClient,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  type Stack,
} from "@aws-sdk/client-cloudformation";
import { errorName } from "./backoff.js";
import { classifyCallFailure } from "./call-retries.js";
import { stackName } from "./naming.js";

/** The region's stack as CloudFormation reports it, or null when there is none. */
export interface StackState {
  status: string;
  outputs: Record<string, string>;
  stackId: string;
  /** The stack's own tags (ours and the organization's), which CloudFormation puts on every resource. */
  tags?: Array<{ Key: string; Value: string }>;
}

export async function describeStack(cfn: CloudFormationClient): Promise<StackState | null> {
  try {
    const response = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = response.Stacks?.[0];
    if (!stack || stack.StackStatus === "DELETE_COMPLETE") return null;
    return toState(stack);
  } catch (error) {
    // CloudFormation answers a missing stack with ValidationError "Stack with id X does not exist"
    if (errorName(error) === "ValidationError" && /does not exist/.test((error as Error).message))
      return null;
    throw error;
  }
}

function toState(stack: Stack): StackState {
  const outputs: Record<string, string> = {};
  for (const output of stack.Outputs ?? [])
    if (output.OutputKey && output.OutputValue !== undefined) outputs[output.OutputKey] = output.OutputValue;
  const tags = (stack.Tags ?? []).flatMap((tag) =>
    tag.Key && tag.Value !== undefined ? [{ Key: tag.Key, Value: tag.Value }] : [],
  );
  return { status: stack.StackStatus ?? "UNKNOWN", outputs, stackId: stack.StackId ?? stackName, tags };
}

export class StackOperationFailed extends Error {
  constructor(
    readonly status: string,
    readonly reasons: string[],
  ) {
    super(`stack ${stackName} ended in ${status}${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}`);
    this.name = "StackOperationFailed";
  }
}

/**
 * Polls until the stack leaves its *_IN_PROGRESS state. Returns the final state (null once
 * deleted); throws StackOperationFailed with the failed resources' reasons unless the status
 * is one of `success`.
 */
export async function waitForStack(
  cfn: CloudFormationClient,
  success: string[],
  options: { pollIntervalMs: number; timeoutMs: number; sleep?: (ms: number) => Promise<void> },
): Promise<StackState | null> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    let state: StackState | null;
    try {
      state = await describeStack(cfn);
    } catch (error) {
      // a poll that stays throttled (or 5xx) past its own retries is only a look missed: the
      // stack goes on changing, so look again until the deadline
      if (classifyCallFailure(error) === "final" || Date.now() > deadline) throw error;
      await sleep(options.pollIntervalMs);
      continue;
    }
    if (state === null) {
      if (success.includes("DELETE_COMPLETE")) return null;
      throw new StackOperationFailed("DELETE_COMPLETE", ["the stack disappeared"]);
    }
    if (!state.status.endsWith("_IN_PROGRESS")) {
      if (success.includes(state.status)) return state;
      throw new StackOperationFailed(state.status, await failureReasons(cfn));
    }
    if (Date.now() > deadline)
      throw new StackOperationFailed(state.status, [`still in progress after ${options.timeoutMs / 1000} s`]);
    await sleep(options.pollIntervalMs);
  }
}

/** The reasons CloudFormation gave for the failed resources of the latest operation. */
export async function failureReasons(cfn: CloudFormationClient): Promise<string[]> {
  const response = await cfn.send(new DescribeStackEventsCommand({ StackName: stackName }));
  const reasons: string[] = [];
  for (const event of response.StackEvents ?? []) {
    // events come newest first: stop at the start of the operation (not at its rollback)
    if (
      event.ResourceType === "AWS::CloudFormation::Stack" &&
      ["CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS", "DELETE_IN_PROGRESS"].includes(event.ResourceStatus ?? "")
    )
      break;
    if (/FAILED$/.test(event.ResourceStatus ?? "") && event.ResourceStatusReason)
      reasons.push(`${event.LogicalResourceId}: ${event.ResourceStatusReason}`);
  }
  return reasons.reverse();
}

/**
 * CloudFormation answers an UpdateStack that would change nothing with a ValidationError whose
 * message says so: not a failure, the stack is already as asked. The message is the only sign.
 */
export function isNoUpdatesError(error: unknown): boolean {
  return (
    errorName(error) === "ValidationError" && /No updates are to be performed/.test((error as Error).message)
  );
}
