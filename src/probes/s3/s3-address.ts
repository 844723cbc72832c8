/**
 * Where an S3 request goes: scheme, host, port and the encoded path of bucket + key.
 * AWS S3 by default (virtual-hosted `BUCKET.s3.REGION.amazonaws.com`); an S3-compatible
 * endpoint (a lab server, MinIO, ...) with path-style `/BUCKET/KEY` when asked.
 */
export interface S3ObjectAddress {
  protocol: "https:" | "http:";
  hostname: string;
  port: number;
  /** The Host header value (hostname, plus the port when it is not the scheme's default). */
  hostHeader: string;
  /** Encoded path of the object (`/bucket/key` or `/key`), ready to sign and send. */
  path: string;
  bucket: string;
  key: string;
}

export function resolveObjectAddress(options: {
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  key: string;
  pathStyle: boolean;
}): S3ObjectAddress {
  const base = new URL(options.endpoint ?? `https://s3.${options.region}.amazonaws.com`);
  if (base.protocol !== "https:" && base.protocol !== "http:")
    throw new RangeError(`endpoint: must be an http:// or https:// URL, got ${base.protocol}`);
  const protocol = base.protocol;
  const defaultPort = protocol === "https:" ? 443 : 80;
  const port = base.port === "" ? defaultPort : Number(base.port);
  // As the AWS SDKs' S3 endpoint rules: path-style when asked, when the endpoint's host is an IP
  // address (no DNS name to prefix), or when the bucket name cannot be a DNS label (dotted names
  // also miss the wildcard certificate of virtual-hosted S3 over HTTPS)
  const pathStyle =
    options.pathStyle ||
    isIpHost(base.hostname) ||
    !isVirtualHostableBucket(options.bucket, protocol === "https:");
  const hostname = pathStyle ? base.hostname : `${options.bucket}.${base.hostname}`;
  const prefix = base.pathname.replace(/\/+$/, "");
  const keyPath = `/${encodeS3Key(options.key)}`;
  const path = pathStyle ? `${prefix}/${encodeS3Segment(options.bucket)}${keyPath}` : `${prefix}${keyPath}`;
  return {
    protocol,
    hostname,
    port,
    hostHeader: port === defaultPort ? hostname : `${hostname}:${port}`,
    path,
    bucket: options.bucket,
    key: options.key,
  };
}

/** An IPv4 address, or an IPv6 one in brackets (URL hostnames keep them). */
export function isIpHost(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || /^\[[0-9a-f:.]+\]$/i.test(hostname);
}

/** The SDKs' isVirtualHostableS3Bucket: 3-63 lower-case letters, digits, hyphens (and dots but not over TLS), not an IP. */
export function isVirtualHostableBucket(bucket: string, overTls: boolean): boolean {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) return false;
  if (/\.\.|\.-|-\./.test(bucket) || /^\d{1,3}(\.\d{1,3}){3}$/.test(bucket)) return false;
  return !(overTls && bucket.includes("."));
}

/** SigV4 URI encoding of a key: every byte but unreserved characters, slashes kept. */
export function encodeS3Key(key: string): string {
  return key.split("/").map(encodeS3Segment).join("/");
}

function encodeS3Segment(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
