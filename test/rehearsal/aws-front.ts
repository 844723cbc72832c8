import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { ec2ProductDocument, getProductsAnswer } from "../helpers/price-list-product.js";
import { AwsFaults, classifyCall } from "./aws-faults.js";
import { BandwidthQuota } from "./bandwidth-quota.js";
import { BRIDGED_FUNCTIONS, type InvokeBridge, type LambdaAnswer } from "./invoke-bridge.js";

/**
 * The endpoint the CLI is pointed at (AWS_ENDPOINT_URL): a loopback HTTP server that answers
 * what moto lacks and forwards everything else to moto unchanged. It answers: Lambda's bandwidth
 * quota (Service Quotas, L-14320ECE), Lambda GetAccountSettings, Invoke of our functions (the
 * invoke bridge), and the Price List API's GetProducts (moto has no Pricing backend) from a small
 * list of EC2 products, filtered as AWS filters them. It changes one thing in moto's answers: the server's public address in the
 * stack's outputs, which becomes the loopback address where the emulated instance answers
 * (moto hands out addresses nothing listens on).
 */

export interface AccountSettings {
  concurrentExecutions: number;
  unreservedConcurrentExecutions: number;
}

export interface FrontOptions {
  motoUrl: string;
  quota: BandwidthQuota;
  bridge: InvokeBridge | null;
  accountSettings: AccountSettings;
  /** The instance's public address on this machine. */
  publicAddress: string;
  /** The EC2 products GetProducts knows, with the rehearsal's own figures (not AWS's). */
  serverPrices: { region: string; instanceType: string; usdPerHour: string }[];
  /** The account moto answers as (the fault layer's denials name it). */
  account: string;
}

export interface Front {
  url: string;
  server: Server;
  /** Calls answered here rather than by moto, "service operation" (tests assert on them). */
  answered: string[];
  /** moto's answers with a 5xx status or an HTML page (its unimplemented operations and crashes). */
  motoFailures: string[];
  /** The last calls forwarded to moto with their status, newest last (to read after a failure). */
  forwarded: string[];
  /** The fault layer: rules to answer calls with AWS's errors, and every call seen. */
  faults: AwsFaults;
  /**
   * Publishes the server at another address in the stack's outputs from now on (a test makes the
   * server unreachable from this machine, as corporate egress does, while the lab still reaches it).
   */
  publishServerAt(address: string): void;
  close(): Promise<void>;
}

export async function startFront(frontOptions: FrontOptions): Promise<Front> {
  // a copy: publishServerAt changes the address this front publishes, not the caller's options
  const options = { ...frontOptions };
  const answered: string[] = [];
  const motoFailures: string[] = [];
  const forwarded: string[] = [];
  const faults = new AwsFaults(options.account);
  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing, options, { answered, motoFailures, forwarded, faults }).catch(
      (error: Error) => {
        if (!outgoing.headersSent) {
          outgoing.writeHead(500, {
            "content-type": "application/json",
            "x-amzn-errortype": "ServiceException",
          });
          outgoing.end(JSON.stringify({ message: `rehearsal front: ${error.message}` }));
        } else outgoing.destroy(error);
      },
    );
  });
  // invocations run as long as the function's timeout
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    answered,
    motoFailures,
    forwarded,
    faults,
    publishServerAt: (address) => {
      options.publicAddress = address;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Service and region from the SigV4 credential scope: `Credential=AKID/DATE/REGION/SERVICE/aws4_request`. */
export function signedScope(authorization: string | undefined): { region: string; service: string } | null {
  const match = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(authorization ?? "");
  return match ? { region: match[1] as string, service: match[2] as string } : null;
}

async function handle(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  options: FrontOptions,
  {
    answered,
    motoFailures,
    forwarded,
    faults,
  }: Pick<Front, "answered" | "motoFailures" | "forwarded" | "faults">,
): Promise<void> {
  const body = await readBody(incoming);
  const scope = signedScope(incoming.headers.authorization);
  const url = new URL(incoming.url ?? "/", "http://front");
  if (scope) {
    const fault = faults.meet(classifyCall(scope.service, incoming, body), incoming, scope.region);
    if (fault) {
      outgoing.writeHead(fault.status, {
        ...fault.headers,
        "content-length": String(Buffer.byteLength(fault.body)),
      });
      outgoing.end(incoming.method === "HEAD" ? undefined : fault.body);
      return;
    }
  }
  const reply = (answer: LambdaAnswer, label: string) => {
    answered.push(label);
    outgoing.writeHead(answer.status, answer.headers);
    outgoing.end(answer.body);
  };
  if (scope?.service === "servicequotas") {
    const target = String(incoming.headers["x-amz-target"] ?? "");
    const input = parseJson(body);
    if (BandwidthQuota.concerns(target, input)) {
      const operation = target.split(".")[1] as string;
      const answer = options.quota.answer(operation, scope.region, input);
      return reply(
        {
          status: answer.status,
          headers: {
            "content-type": "application/x-amz-json-1.1",
            ...(answer.errorType ? { "x-amzn-errortype": answer.errorType } : {}),
          },
          body: JSON.stringify(answer.body),
        },
        `servicequotas ${operation}`,
      );
    }
  }
  if (scope?.service === "pricing" && incoming.headers["x-amz-target"] === "AWSPriceListService.GetProducts")
    return reply(getProducts(parseJson(body), options.serverPrices), "pricing GetProducts");
  if (scope?.service === "lambda") {
    if (incoming.method === "GET" && /^\/2016-08-19\/account-settings\/?$/.test(url.pathname))
      return reply(accountSettingsAnswer(options.accountSettings), "lambda GetAccountSettings");
    const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
    const name = invoke ? functionNameOf(decodeURIComponent(invoke[1] as string)) : null;
    if (name && options.bridge && BRIDGED_FUNCTIONS.has(name)) {
      const qualifier = url.searchParams.get("Qualifier") ?? "$LATEST";
      return reply(await options.bridge.invoke(name, qualifier, body.toString("utf8")), "lambda Invoke");
    }
  }
  const rewrite =
    scope?.service === "cloudformation" &&
    new URLSearchParams(body.toString("utf8")).get("Action") === "DescribeStacks"
      ? (xml: string) => publishServerAddress(xml, options.publicAddress)
      : null;
  const label = `${scope?.service ?? "?"} ${incoming.method} ${url.pathname} ${operationOf(incoming, body)}`;
  const status = await forward(
    incoming,
    outgoing,
    body,
    options.motoUrl,
    rewrite,
    scope?.service !== "s3",
    (code, text) => motoFailures.push(`${label}: ${code} ${text.replace(/\s+/g, " ").slice(0, 300)}`),
  );
  forwarded.push(`${new Date().toISOString()} ${label} ${status}`);
  if (forwarded.length > 500) forwarded.shift();
}

/** The operation a request names (query protocol Action, JSON X-Amz-Target), for diagnostics. */
function operationOf(incoming: IncomingMessage, body: Buffer): string {
  const target = incoming.headers["x-amz-target"];
  if (target) return String(target);
  return new URLSearchParams(body.toString("utf8")).get("Action") ?? "";
}

/** A function named by name, partial ARN or ARN (with or without a qualifier). */
function functionNameOf(nameOrArn: string): string {
  const arn = /(?:^|:)function:([^:]+)/.exec(nameOrArn);
  return arn ? (arn[1] as string) : (nameOrArn.split(":")[0] as string);
}

function accountSettingsAnswer(settings: AccountSettings): LambdaAnswer {
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      AccountLimit: {
        TotalCodeSize: 80_530_636_800,
        CodeSizeUnzipped: 262_144_000,
        CodeSizeZipped: 52_428_800,
        ConcurrentExecutions: settings.concurrentExecutions,
        UnreservedConcurrentExecutions: settings.unreservedConcurrentExecutions,
      },
      AccountUsage: { TotalCodeSize: 0, FunctionCount: 0 },
    }),
  };
}

/**
 * GetProducts over the rehearsal's products: those whose attributes match every TERM_MATCH
 * filter, as AWS answers (a filter on a field a product lacks, or another value, excludes it).
 */
function getProducts(input: Record<string, unknown>, products: FrontOptions["serverPrices"]): LambdaAnswer {
  const filters = Array.isArray(input.Filters) ? (input.Filters as { Field?: string; Value?: string }[]) : [];
  const documents =
    input.ServiceCode === "AmazonEC2" ? products.map((product) => ec2ProductDocument(product)) : [];
  const matching = documents.filter((document) => {
    const attributes = (JSON.parse(document) as { product: { attributes: Record<string, string> } }).product
      .attributes;
    return filters.every((filter) => attributes[filter.Field ?? ""] === filter.Value);
  });
  return {
    status: 200,
    headers: { "content-type": "application/x-amz-json-1.1" },
    body: JSON.stringify(getProductsAnswer(matching)),
  };
}

/** The server's public address and name in DescribeStacks outputs: where the emulated instance answers. */
export function publishServerAddress(xml: string, publicAddress: string): string {
  return xml.replace(
    /(<OutputKey>ServerPublic(?:Ip|DnsName)<\/OutputKey>\s*<OutputValue>)[^<]*(<\/OutputValue>)/g,
    `$1${publicAddress}$2`,
  );
}

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function forward(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  body: Buffer,
  motoUrl: string,
  rewrite: ((text: string) => string) | null,
  htmlIsFailure: boolean,
  onFailure: (status: number, text: string) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const upstream = request(
      new URL(incoming.url ?? "/", motoUrl),
      { method: incoming.method, headers: { ...incoming.headers, "content-length": String(body.length) } },
      (response) => {
        // an HTML page is moto's "not implemented" or crash (its S3 labels empty answers text/html)
        const html = htmlIsFailure && String(response.headers["content-type"] ?? "").includes("text/html");
        if ((response.statusCode ?? 500) >= 500 || html) {
          readBody(response).then((raw) => {
            // moto labels some JSON answers text/html too: its error pages start like one
            const page = /^\s*<(!doctype html|html)/i.test(raw.toString("utf8", 0, 64));
            if ((response.statusCode ?? 500) >= 500 || page)
              onFailure(response.statusCode ?? 0, raw.toString("utf8"));
            outgoing.writeHead(response.statusCode ?? 502, response.headers);
            outgoing.end(raw);
            resolve(response.statusCode ?? 0);
          }, reject);
          return;
        }
        if (!rewrite) {
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
          response.once("end", () => resolve(response.statusCode ?? 0));
          response.once("error", reject);
          return;
        }
        readBody(response).then((raw) => {
          const text = rewrite(raw.toString("utf8"));
          const headers = { ...response.headers, "content-length": String(Buffer.byteLength(text)) };
          delete headers["transfer-encoding"];
          outgoing.writeHead(response.statusCode ?? 502, headers);
          outgoing.end(text);
          resolve(response.statusCode ?? 0);
        }, reject);
      },
    );
    upstream.once("error", reject);
    upstream.end(body);
  });
}
