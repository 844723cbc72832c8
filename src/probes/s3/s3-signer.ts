import { createHash } from "node:crypto";
import { Sha256 } from "@aws-crypto/sha256-js";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { ProbeError } from "../probe-error.js";
import type { S3ObjectAddress } from "./s3-address.js";

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}
export type S3CredentialProvider = () => Promise<S3Credentials>;

/** The payload marker S3 accepts instead of a body hash (over HTTPS the body is protected by TLS). */
export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
export const EMPTY_BODY_SHA256 = createHash("sha256").update("").digest("hex");

export interface SignableRequest {
  method: "GET" | "HEAD" | "PUT" | "POST" | "DELETE";
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** hex SHA-256 of the body, or UNSIGNED-PAYLOAD; the signer never hashes bodies itself. */
  payloadSha256: string;
}

/**
 * Signs S3 requests with the official SigV4 signer and the standard credential chain
 * (environment, profile, SSO, web identity, container and instance metadata; on Lambda the
 * function's role through the environment). The body hash is given, never computed by the
 * signer, so signing costs microseconds whatever the body size.
 */
export class S3RequestSigner {
  private readonly signer: SignatureV4 | null;
  readonly anonymous: boolean;

  /**
   * `signRequest: false` is the AWS CLI's `--no-sign-request`: anonymous requests (a public
   * bucket or object) that carry no Authorization, date or token header and never look for
   * credentials, so they work on a machine that has none.
   */
  constructor(
    region: string,
    credentials: S3CredentialProvider = defaultProvider(),
    options: { signRequest: boolean } = { signRequest: true },
  ) {
    this.anonymous = !options.signRequest;
    if (this.anonymous) {
      this.signer = null;
      return;
    }
    this.signer = new SignatureV4({
      credentials: failFastCredentials(credentials),
      region,
      service: "s3",
      sha256: Sha256,
      // S3 signs the path exactly as sent (already encoded), unlike other services
      uriEscapePath: false,
      applyChecksum: false,
    });
  }

  /** Returns the headers to send (the given ones plus host, x-amz-date, authorization, ...). */
  async sign(address: S3ObjectAddress, request: SignableRequest): Promise<Record<string, string>> {
    if (this.signer === null) return { ...request.headers, host: address.hostHeader };
    const signed = await this.signer.sign({
      method: request.method,
      protocol: address.protocol,
      hostname: address.hostname,
      port: address.port,
      path: address.path,
      query: request.query ?? {},
      headers: {
        ...request.headers,
        host: address.hostHeader,
        "x-amz-content-sha256": request.payloadSha256,
      },
    });
    return signed.headers as Record<string, string>;
  }
}

/**
 * An anonymous request S3 refuses (AccessDenied) says why: the bucket or object is not public,
 * so the user signs the request instead of checking an IAM policy that was never used.
 */
export function explainAnonymousDenial(signer: S3RequestSigner, error: unknown): unknown {
  if (!signer.anonymous || !(error instanceof ProbeError) || error.kind !== "access-denied") return error;
  return new ProbeError(
    error.kind,
    `${error.message}; the request was anonymous (--no-sign-request): only a bucket or object that allows public access answers it, drop --no-sign-request to sign with your credentials`,
    { cause: error },
  );
}

/**
 * No credentials is not a transient failure: a ProbeError (never retried) naming where the chain
 * looks, instead of five retries ending in "Could not load credentials".
 */
function failFastCredentials(provider: S3CredentialProvider): S3CredentialProvider {
  return async () => {
    try {
      return await provider();
    } catch (error) {
      throw new ProbeError(
        "auth-failed",
        `no AWS credentials to sign S3 requests (${(error as Error).message.split("\n")[0]}): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys)`,
        { cause: error },
      );
    }
  };
}

/** `?a=1&b=2` in the order SigV4 canonicalises (sorted, RFC 3986 encoded). */
export function encodeQuery(query: Record<string, string> | undefined): string {
  if (!query) return "";
  const pairs = Object.keys(query)
    .sort()
    .map((name) => `${rfc3986(name)}=${rfc3986(query[name] ?? "")}`);
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
