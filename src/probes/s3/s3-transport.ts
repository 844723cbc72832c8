import http from "node:http";
import https from "node:https";
import type { S3ObjectAddress } from "./s3-address.js";

/**
 * Keep-alive connection pool for one probe run. The `ca` PEM (a lab server's own CA) is
 * passed as content because Lambda has no local file for it.
 */
export function createKeepAliveAgent(
  address: S3ObjectAddress,
  maxSockets: number,
  caPem: string | undefined,
): http.Agent {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "lifo" as const };
  return address.protocol === "https:"
    ? new https.Agent({ ...options, ...(caPem ? { ca: caPem } : {}) })
    : new http.Agent(options);
}

export interface RequestTarget {
  address: S3ObjectAddress;
  agent: http.Agent;
  /** Idle limit of one request: no response or no body byte for this long fails it. */
  requestTimeoutMs: number;
}

/** Starts an HTTP(S) request on the pool; the caller writes the body and handles the response. */
export function startRequest(
  target: RequestTarget,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
): http.ClientRequest {
  const { address } = target;
  const options: https.RequestOptions = {
    agent: target.agent,
    protocol: address.protocol,
    hostname: address.hostname,
    port: address.port,
    method,
    path: pathAndQuery,
    headers,
    timeout: target.requestTimeoutMs,
  };
  const request =
    address.protocol === "https:" ? https.request(options) : http.request(options as http.RequestOptions);
  request.on("timeout", () =>
    request.destroy(new RequestStalledError(`no data for ${target.requestTimeoutMs} ms`)),
  );
  return request;
}

/** A request that went quiet longer than its timeout (a stalled connection). */
export class RequestStalledError extends Error {
  readonly code = "ESTALLED";
  constructor(message: string) {
    super(message);
    this.name = "RequestStalledError";
  }
}

export interface BufferedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A small request whose response body (XML, at most a few KiB) is read whole. */
export function sendSmallRequest(
  target: RequestTarget,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: Buffer,
  onRequest?: (request: http.ClientRequest) => void,
): Promise<BufferedResponse> {
  return new Promise((resolve, reject) => {
    const request = startRequest(target, method, pathAndQuery, headers);
    onRequest?.(request);
    request.on("error", reject);
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let total = 0;
      response.on("data", (chunk: Buffer) => {
        // error documents and XML results are small; never buffer an object by mistake
        if (total < 1_048_576) chunks.push(chunk);
        total += chunk.length;
      });
      response.on("error", reject);
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.end(body);
  });
}
