import type { HandlerExecutionContext, InitializeHandlerArguments, MiddlewareStack } from "@smithy/types";
import { declaredCalls } from "./operator-policy.js";

/** One AWS API call the tool made (or, in a dry run, would have made). */
export interface PlannedCall {
  service: string;
  operation: string;
  region: string;
  /** The call's input with secrets replaced by "[redacted]". */
  input: Record<string, unknown>;
  /** False when a dry run held the call back. */
  sent: boolean;
}

/** Input fields that carry secrets; never printed or recorded. */
const secretFields = new Set(["Value", "Payload", "Body", "SecretString", "password"]);

/** Operations that only read: a dry run still sends them, so its plan reflects what exists. */
export function isReadOnlyOperation(operation: string): boolean {
  return /^(Describe|Get|List|Head|Validate|Estimate)/.test(operation);
}

/**
 * A call that is not in the declared list (operator-policy.ts): the printed operator policy
 * would lack its permission, so it is refused before it is sent, in every mode.
 */
export class UndeclaredAwsCallError extends Error {
  constructor(readonly call: string) {
    super(
      `internal: AWS call ${call} is not declared in src/platforms/aws/operator-policy.ts (declaredCalls), so the operator policy would not allow it; declare it with its IAM actions`,
    );
    this.name = "UndeclaredAwsCallError";
  }
}

const declared = declaredCalls();

/**
 * Every client goes through this recorder: it refuses a call that is not declared, lists the
 * calls made, in order, and in a dry run it holds back every call that would change something
 * (returning an empty output), so `--dry-run` prints exactly the calls a real run would make at
 * that point.
 */
export class PlannedCallRecorder {
  readonly calls: PlannedCall[] = [];
  /**
   * `sentAnyway`: `Service.Operation`s a dry run still sends although they are not reads (the
   * preflight of a real run asks the agent function with an Invoke that changes nothing).
   */
  constructor(
    readonly dryRun: boolean,
    private readonly sentAnyway: ReadonlySet<string> = new Set(),
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: one middleware for every client's input and output types
  attach(client: { middlewareStack: MiddlewareStack<any, any> }, region: string): void {
    client.middlewareStack.add(
      // biome-ignore lint/suspicious/noExplicitAny: one middleware for every client's input and output types
      (next: (args: InitializeHandlerArguments<any>) => Promise<any>, context: HandlerExecutionContext) =>
        // biome-ignore lint/suspicious/noExplicitAny: one middleware for every client's input and output types
        async (args: InitializeHandlerArguments<any>) => {
          const service = (context.clientName ?? "Client").replace(/Client$/, "");
          const operation = (context.commandName ?? "Command").replace(/Command$/, "");
          if (!(`${service}.${operation}` in declared))
            throw new UndeclaredAwsCallError(`${service}.${operation}`);
          // EC2's DryRun and IAM's simulator ask without changing anything
          const asks = args.input?.DryRun === true || operation === "SimulatePrincipalPolicy";
          const send =
            !this.dryRun ||
            isReadOnlyOperation(operation) ||
            asks ||
            this.sentAnyway.has(`${service}.${operation}`);
          this.calls.push({ service, operation, region, input: redactInput(args.input), sent: send });
          if (!send) return { output: { $metadata: {} } };
          return next(args);
        },
      { step: "initialize", name: "lambdaNetbenchPlannedCalls", priority: "high", override: true },
    );
  }

  /** `Service.Operation region {input}` lines, for `--dry-run`. */
  describe(): string[] {
    return this.calls.map(
      (call) =>
        `${call.sent ? "" : "would call "}${call.service}.${call.operation} (${call.region}) ${JSON.stringify(call.input)}`,
    );
  }
}

function redactInput(input: unknown): Record<string, unknown> {
  if (typeof input !== "object" || input === null) return {};
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (secretFields.has(key)) copy[key] = "[redacted]";
    else if (value instanceof Uint8Array) copy[key] = `[${value.byteLength} bytes]`;
    else copy[key] = value;
  }
  return copy;
}
