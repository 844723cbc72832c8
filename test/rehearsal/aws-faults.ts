import type { IncomingMessage } from "node:http";

/**
 * The rehearsal's fault layer, in the front's path before moto: what a real account answers
 * that moto never does. Each rule names the calls it meets (signing service, and optionally the
 * operation or the HTTP method and path) and answers them with one fault, in the error shape
 * that service's protocol really uses: throttling, a 5xx burst, a service control policy's
 * explicit deny, Lambda's "update in progress", an expired session token. Every call the front
 * sees is logged with whether it writes, so a test can prove a dry run wrote nothing.
 */

export type AwsFault = "throttle" | "unavailable" | "scp-deny" | "lambda-conflict" | "expired-token";

export interface AwsFaultRule {
  /** The SigV4 signing service: "cloudformation", "lambda", "scheduler", "tagging", "s3", ... ("*": any). */
  service: string;
  /** The operation (query Action, JSON X-Amz-Target's, or the REST operation the front names). */
  operation?: string;
  method?: string;
  path?: RegExp;
  /** Let this many matching calls through first. */
  skip?: number;
  /** The rule applies only from the first call of this service (and operation) on, that call included. */
  armedBy?: { service: string; operation?: string };
  /** Answer this many matching calls with the fault (Infinity: until the rule is removed). */
  times: number;
  fault: AwsFault;
}

/** One call as the front saw it. */
export interface SeenCall {
  service: string;
  operation: string;
  method: string;
  path: string;
  /** False for reads (and for EC2's DryRun, which only asks). */
  write: boolean;
  fault: AwsFault | null;
}

export interface FaultAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The protocol a service speaks, which decides the error document's shape. */
type Protocol = "query" | "ec2" | "json" | "rest-json" | "s3";

function protocolOf(service: string, incoming: IncomingMessage): Protocol {
  if (service === "s3") return "s3";
  if (service === "ec2") return "ec2";
  if (incoming.headers["x-amz-target"]) return "json";
  if (["cloudformation", "iam", "sts"].includes(service)) return "query";
  return "rest-json";
}

/** Lambda's REST operations the tool uses, named as the SDK names them (for rules and logs). */
function lambdaOperation(method: string, path: string): string {
  const rules: [string, RegExp, string][] = [
    ["POST", /\/functions\/[^/]+\/invocations$/, "Invoke"],
    ["GET", /\/functions\/[^/]+\/configuration$/, "GetFunctionConfiguration"],
    ["PUT", /\/functions\/[^/]+\/configuration$/, "UpdateFunctionConfiguration"],
    ["PUT", /\/functions\/[^/]+\/code$/, "UpdateFunctionCode"],
    ["POST", /\/functions\/[^/]+\/versions$/, "PublishVersion"],
    ["GET", /\/functions\/[^/]+\/versions$/, "ListVersionsByFunction"],
    ["POST", /\/functions\/[^/]+\/aliases$/, "CreateAlias"],
    ["GET", /\/functions\/[^/]+\/aliases$/, "ListAliases"],
    ["PUT", /\/functions\/[^/]+\/aliases\/[^/]+$/, "UpdateAlias"],
    ["GET", /\/functions\/[^/]+\/aliases\/[^/]+$/, "GetAlias"],
    ["DELETE", /\/functions\/[^/]+\/aliases\/[^/]+$/, "DeleteAlias"],
    ["DELETE", /\/functions\/[^/]+$/, "DeleteFunction"],
    ["GET", /\/functions\/[^/]+$/, "GetFunction"],
    ["GET", /\/account-settings\/?$/, "GetAccountSettings"],
  ];
  return rules.find(([m, pattern]) => m === method && pattern.test(path))?.[2] ?? `${method} ${path}`;
}

/** EventBridge Scheduler's REST operations the tool uses. */
function schedulerOperation(method: string, path: string): string {
  const rules: [string, RegExp, string][] = [
    ["GET", /^\/schedules\/?$/, "ListSchedules"],
    ["GET", /^\/schedules\/[^/]+$/, "GetSchedule"],
    ["PUT", /^\/schedules\/[^/]+$/, "UpdateSchedule"],
    ["DELETE", /^\/schedules\/[^/]+$/, "DeleteSchedule"],
    ["GET", /^\/schedule-groups\/?$/, "ListScheduleGroups"],
  ];
  return rules.find(([m, pattern]) => m === method && pattern.test(path))?.[2] ?? `${method} ${path}`;
}

const readPrefix = /^(Describe|Get|List|Head|Validate|Estimate|Simulate|Search|Lookup)/;

/** The call's operation and whether it writes, from its protocol. */
export function classifyCall(service: string, incoming: IncomingMessage, body: Buffer): SeenCall {
  const method = incoming.method ?? "GET";
  const path = new URL(incoming.url ?? "/", "http://front").pathname;
  const protocol = protocolOf(service, incoming);
  let operation: string;
  let write: boolean;
  if (protocol === "json") {
    operation = String(incoming.headers["x-amz-target"]).split(".").at(-1) ?? "";
    write = !readPrefix.test(operation);
  } else if (protocol === "query" || protocol === "ec2") {
    const form = new URLSearchParams(body.toString("utf8"));
    operation = form.get("Action") ?? "";
    // EC2's DryRun asks whether the call would be allowed and changes nothing
    write = !readPrefix.test(operation) && form.get("DryRun") !== "true";
  } else {
    operation =
      service === "lambda"
        ? lambdaOperation(method, path)
        : service === "scheduler"
          ? schedulerOperation(method, path)
          : `${method} ${path}`;
    write = !(method === "GET" || method === "HEAD");
  }
  return { service, operation, method, path, write, fault: null };
}

export class AwsFaults {
  private rules: (AwsFaultRule & { seen: number; used: number; armed: boolean })[] = [];
  readonly calls: SeenCall[] = [];

  constructor(private readonly account: string) {}

  set(rules: AwsFaultRule[]): void {
    this.rules = rules.map((rule) => ({ ...rule, seen: 0, used: 0, armed: !rule.armedBy }));
  }

  clear(): void {
    this.rules = [];
  }

  /** How many calls each rule answered with its fault. */
  injected(): number[] {
    return this.rules.map((rule) => rule.used);
  }

  /** Logs the call; returns the fault's answer when a rule meets it, or null to forward it. */
  meet(call: SeenCall, incoming: IncomingMessage, region: string): FaultAnswer | null {
    this.calls.push(call);
    if (this.calls.length > 20_000) this.calls.shift();
    for (const rule of this.rules) {
      const arm = rule.armedBy;
      if (arm && arm.service === call.service && (!arm.operation || arm.operation === call.operation))
        rule.armed = true;
      if (!rule.armed) continue;
      if (rule.service !== "*" && rule.service !== call.service) continue;
      if (rule.operation && rule.operation !== call.operation) continue;
      if (rule.method && rule.method !== call.method) continue;
      if (rule.path && !rule.path.test(call.path)) continue;
      rule.seen++;
      if (rule.seen <= (rule.skip ?? 0) || rule.used >= rule.times) continue;
      rule.used++;
      call.fault = rule.fault;
      return answerFor(rule.fault, protocolOf(call.service, incoming), call, this.account, region);
    }
    return null;
  }
}

const requestId = "8d2f6a1e-3b4c-4d5e-9f60-7a8b9c0d1e2f";

/** The error, its status and message, as AWS sends it for this fault and service. */
function answerFor(
  fault: AwsFault,
  protocol: Protocol,
  call: SeenCall,
  account: string,
  region: string,
): FaultAnswer {
  const action = `${call.service === "tagging" ? "tag" : call.service}:${call.operation}`;
  const denied = `User: arn:aws:sts::${account}:assumed-role/Bench/operator is not authorized to perform: ${action} on resource: arn:aws:${call.service}:${region}:${account}:* with an explicit deny in a service control policy`;
  const shapes: Record<AwsFault, { status: number; code: Record<Protocol, string>; message: string }> = {
    throttle: {
      status: protocol === "rest-json" ? 429 : protocol === "s3" ? 503 : 400,
      code: {
        query: "Throttling",
        ec2: "RequestLimitExceeded",
        json: "ThrottlingException",
        "rest-json": "TooManyRequestsException",
        s3: "SlowDown",
      },
      message: protocol === "ec2" ? "Request limit exceeded." : "Rate exceeded",
    },
    unavailable: {
      status: 503,
      code: {
        query: "ServiceUnavailable",
        ec2: "Unavailable",
        json: "ServiceUnavailableException",
        "rest-json": "ServiceException",
        s3: "ServiceUnavailable",
      },
      message: "Service is unavailable, please try again later.",
    },
    "scp-deny": {
      status: 403,
      code: {
        query: "AccessDenied",
        ec2: "UnauthorizedOperation",
        json: "AccessDeniedException",
        "rest-json": "AccessDeniedException",
        s3: "AccessDenied",
      },
      message: denied,
    },
    "lambda-conflict": {
      status: 409,
      code: {
        query: "ResourceConflictException",
        ec2: "ResourceConflictException",
        json: "ResourceConflictException",
        "rest-json": "ResourceConflictException",
        s3: "ResourceConflictException",
      },
      message: `The operation cannot be performed at this time. An update is in progress for resource: arn:aws:lambda:${region}:${account}:function:lambda-netbench-agent`,
    },
    "expired-token": {
      status: protocol === "s3" ? 400 : 403,
      code: {
        query: "ExpiredToken",
        ec2: "RequestExpired",
        json: "ExpiredTokenException",
        "rest-json": "ExpiredTokenException",
        s3: "ExpiredToken",
      },
      message:
        protocol === "s3"
          ? "The provided token has expired."
          : "The security token included in the request is expired",
    },
  };
  const shape = shapes[fault];
  const code = shape.code[protocol];
  const message = shape.message;
  switch (protocol) {
    case "query":
      return {
        status: shape.status,
        headers: { "content-type": "text/xml" },
        body: `<ErrorResponse xmlns="http://${call.service}.amazonaws.com/doc/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      };
    case "ec2":
      return {
        status: shape.status,
        headers: { "content-type": "text/xml;charset=UTF-8" },
        body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`,
      };
    case "s3":
      return {
        status: shape.status,
        headers: { "content-type": "application/xml" },
        body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message><RequestId>${requestId}</RequestId></Error>`,
      };
    case "json":
      return {
        status: shape.status,
        headers: { "content-type": "application/x-amz-json-1.1", "x-amzn-requestid": requestId },
        body: JSON.stringify({ __type: code, message }),
      };
    case "rest-json":
      return {
        status: shape.status,
        headers: {
          "content-type": "application/json",
          "x-amzn-errortype": code,
          "x-amzn-requestid": requestId,
        },
        body: JSON.stringify({ Type: "User", message }),
      };
  }
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
