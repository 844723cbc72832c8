import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A fault-injecting HTTP proxy between a probe and a real S3-compatible server. Requests pass
 * through untouched unless a rule matches; a rule then injects one fault, `times` times:
 * - `reset`: forward the response headers and `afterBytes` of the body, then reset the connection (RST);
 * - `short-body`: forward the headers (full Content-Length) and `afterBytes`, then close cleanly;
 * - `stall`: forward the headers and `afterBytes`, then send nothing more (connection stays open);
 * - `error`: answer with `status` and the exact XML error document S3 sends for `code`
 *   (no body for HEAD, as S3 does);
 * - `delay`: hold the server's whole answer for `milliseconds`, then forward it untouched (a
 *   CompleteMultipartUpload that takes S3 a while).
 */
export type Fault =
  | { kind: "reset" | "short-body" | "stall"; afterBytes: number }
  | { kind: "error"; status: number; code: S3ErrorCode }
  | { kind: "delay"; milliseconds: number };

export type S3ErrorCode =
  | "SlowDown"
  | "InternalError"
  | "AccessDenied"
  | "SignatureDoesNotMatch"
  | "PreconditionFailed";

export interface FaultRule {
  method?: string;
  /** Only requests whose path+query contains this. */
  pathIncludes?: string;
  /** Only requests with a Range header. */
  ranged?: boolean;
  /** Let this many matching requests through first. */
  skip?: number;
  /** Inject into this many matching requests (then let them through). */
  times: number;
  fault: Fault;
}

export interface SeenRequest {
  method: string;
  path: string;
  range: string | undefined;
  ifMatch: string | undefined;
  fault: Fault["kind"] | null;
}

export interface FaultProxy {
  endpoint: string;
  requests: SeenRequest[];
  /** Bytes of object bodies (2xx) the proxy delivered to the client. */
  deliveredBodyBytes(): number;
  setRules(rules: FaultRule[]): void;
  close(): Promise<void>;
}

const REQUEST_ID = "4442587FB7D0A2F9";
const HOST_ID = "ZxWGgmZcQ0YhnHQjEhDXoUQkTRfaQ93bOdB9Vz4WkWmZBxRbSq3mHl0Pn+4KuVUXzvr5M0Z3R0s=";

/** The error documents S3 returns (from the S3 API reference), byte for byte in shape. */
export function s3ErrorDocument(code: S3ErrorCode, resource: string): string {
  const messages: Record<S3ErrorCode, string> = {
    SlowDown: "Please reduce your request rate.",
    InternalError: "We encountered an internal error. Please try again.",
    AccessDenied: "Access Denied",
    SignatureDoesNotMatch:
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    PreconditionFailed: "At least one of the pre-conditions you specified did not hold",
  };
  const extra =
    code === "SignatureDoesNotMatch"
      ? "<AWSAccessKeyId>AKIAIOSFODNN7EXAMPLE</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256\n20261129T000000Z\n20261129/us-east-1/s3/aws4_request\n0000</StringToSign><SignatureProvided>0000</SignatureProvided>"
      : code === "PreconditionFailed"
        ? "<Condition>If-Match</Condition>"
        : "";
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${messages[code]}</Message>${extra}<Resource>${resource}</Resource><RequestId>${REQUEST_ID}</RequestId><HostId>${HOST_ID}</HostId></Error>`;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  let rules: Array<FaultRule & { seen: number; applied: number }> = [];
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let delivered = 0;
  const upstreamAgent = new http.Agent({ keepAlive: true });

  const server = http.createServer((request, response) => {
    const path = request.url ?? "/";
    const method = request.method ?? "GET";
    const range = request.headers.range;
    const rule = rules.find(
      (candidate) =>
        (candidate.method === undefined || candidate.method === method) &&
        (candidate.pathIncludes === undefined || path.includes(candidate.pathIncludes)) &&
        (candidate.ranged === undefined || candidate.ranged === (range !== undefined)) &&
        candidate.applied < candidate.times &&
        candidate.seen++ >= (candidate.skip ?? 0),
    );
    if (rule) rule.applied += 1;
    const fault = rule?.fault ?? null;
    requests.push({
      method,
      path,
      range,
      ifMatch: request.headers["if-match"],
      fault: fault?.kind ?? null,
    });
    if (fault?.kind === "error") {
      request.resume();
      const body = method === "HEAD" ? "" : s3ErrorDocument(fault.code, path);
      response.writeHead(fault.status, {
        "content-type": "application/xml",
        "content-length": Buffer.byteLength(body),
        "x-amz-request-id": REQUEST_ID,
      });
      response.end(body);
      return;
    }
    const forward = http.request(
      {
        agent: upstreamAgent,
        hostname: target.hostname,
        port: target.port,
        method,
        path,
        headers: request.headers,
      },
      (upstreamResponse) => {
        const status = upstreamResponse.statusCode ?? 502;
        if (fault?.kind === "delay") {
          setTimeout(() => {
            response.writeHead(status, upstreamResponse.headers);
            upstreamResponse.pipe(response);
          }, fault.milliseconds);
          return;
        }
        if (fault && fault.afterBytes === 0) {
          // break before any byte of the response
          upstreamResponse.destroy();
          if (fault.kind === "reset") response.socket?.resetAndDestroy();
          else if (fault.kind === "short-body") response.socket?.end();
          return;
        }
        response.writeHead(status, upstreamResponse.headers);
        if (!fault) {
          upstreamResponse.on("data", (chunk: Buffer) => {
            if (status < 300) delivered += chunk.length;
            response.write(chunk);
          });
          upstreamResponse.on("end", () => response.end());
          return;
        }
        // forward exactly `afterBytes` of the body, then break the response as asked
        let sent = 0;
        let broken = false;
        upstreamResponse.on("data", (chunk: Buffer) => {
          if (broken) return;
          const room = fault.afterBytes - sent;
          const part = chunk.subarray(0, Math.max(0, room));
          sent += part.length;
          delivered += part.length;
          const reachedLimit = sent >= fault.afterBytes;
          if (part.length > 0) response.write(part);
          if (!reachedLimit) return;
          broken = true;
          upstreamResponse.destroy();
          const socket = response.socket;
          if (!socket) return;
          if (fault.kind === "reset") {
            // give the bytes time to reach the client, then RST
            setTimeout(() => socket.resetAndDestroy(), 100);
          } else if (fault.kind === "short-body") {
            setTimeout(() => socket.end(), 50);
          }
          // stall: leave the connection open and silent
        });
      },
    );
    forward.on("error", () => response.destroy());
    request.pipe(forward);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    deliveredBodyBytes: () => delivered,
    setRules: (next) => {
      rules = next.map((rule) => ({ ...rule, seen: 0, applied: 0 }));
      requests.length = 0;
      delivered = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      upstreamAgent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
