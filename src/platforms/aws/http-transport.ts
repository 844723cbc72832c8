import { NodeHttpHandler } from "@smithy/node-http-handler";
import { ProxyAgent } from "proxy-agent";

/**
 * The HTTP transport of the AWS clients the CLI builds. The SDK v3 ignores HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY: behind a corporate proxy every call would try to connect directly
 * and time out. When the environment names a proxy, both agents of the SDK's handler are
 * proxy-agent's ProxyAgent, which chooses per request by curl's rules (proxy-from-env):
 * HTTPS_PROXY (a CONNECT tunnel) for the https endpoints AWS has, HTTP_PROXY for an http
 * endpoint (AWS_ENDPOINT_URL), ALL_PROXY for both, NO_PROXY's hosts and domain suffixes
 * directly; socks5:// and pac+http:// proxy URLs work as well. Without a proxy the SDK's own
 * transport stays, unchanged.
 */

const proxyVariables = ["https_proxy", "http_proxy", "all_proxy"];

/** The variable naming the proxy, lower or upper case (as curl reads them), or null. */
function proxyVariable(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const name of proxyVariables)
    for (const spelled of [name, name.toUpperCase()]) if (env[spelled]) return spelled;
  return null;
}

/**
 * A handler with these timeouts (ms) through the environment's proxy; undefined when neither is
 * asked for, so the client keeps the SDK's default transport.
 */
export function awsRequestHandler(timeouts?: {
  connectionMs: number;
  requestMs: number;
}): NodeHttpHandler | undefined {
  const proxied = proxyVariable() !== null;
  if (!proxied && !timeouts) return undefined;
  // The SDK's own agents keep connections alive, 50 sockets at most: so does the https one,
  // whose kept sockets are tunnels to one endpoint each. The http one may not: a kept socket
  // to an HTTP proxy is reused without the agent's rewrite of the path to the absolute form
  // (seen here: the proxy got "POST /" for the second call).
  const agents = proxied
    ? {
        httpAgent: new ProxyAgent({ keepAlive: false }),
        httpsAgent: new ProxyAgent({ keepAlive: true, maxSockets: 50 }),
      }
    : {};
  return new NodeHttpHandler({
    ...agents,
    ...(timeouts ? { connectionTimeout: timeouts.connectionMs, requestTimeout: timeouts.requestMs } : {}),
  });
}
