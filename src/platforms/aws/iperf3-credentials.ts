import { createHash, createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import {
  AddTagsToResourceCommand,
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from "@aws-sdk/client-ssm";
import type { Iperf3Auth } from "../../probes/iperf3/options.js";
import {
  iperf3PasswordParameter,
  iperf3PrivateKeyParameter,
  iperf3StatusParameter,
  iperf3Username,
  tagKey,
  tagValue,
} from "./naming.js";

/**
 * The iperf3 server's RSA authentication: the tool generates the key pair and a password,
 * keeps both in SSM Parameter Store as SecureStrings (the server reads them at boot), and
 * hands username, password and public key to the agent in the invocation event.
 */
export interface Iperf3Secrets {
  privateKeyPem: string;
  password: string;
}

export function generateIperf3Secrets(): Iperf3Secrets {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  // iperf3 splits the token on whitespace: the password is URL-safe base64, no whitespace
  return { privateKeyPem: privateKey, password: randomBytes(24).toString("base64url") };
}

export function publicKeyFromPrivate(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: "spki", format: "pem" }).toString();
}

/** A line of iperf3's --authorized-users-path file: `user,sha256("{user}password")`. */
export function authorizedUserLine(username: string, password: string): string {
  return `${username},${createHash("sha256").update(`{${username}}${password}`).digest("hex")}`;
}

async function readParameter(ssm: SSMClient, name: string): Promise<string | null> {
  try {
    const response = await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    return response.Parameter?.Value ?? null;
  } catch (error) {
    if (error instanceof ParameterNotFound || (error as { name?: string }).name === "ParameterNotFound")
      return null;
    throw error;
  }
}

/**
 * Makes sure the key and password exist; keeps existing ones, so a re-deploy does not lock
 * out a running server. Returns true when it created them. They are made outside
 * CloudFormation, so they get the stack's tags here (`deploy --tags` included).
 */
export async function ensureIperf3Secrets(
  ssm: SSMClient,
  tags: Array<{ Key: string; Value: string }> = [{ Key: tagKey, Value: tagValue }],
  generate: () => Iperf3Secrets = generateIperf3Secrets,
): Promise<boolean> {
  const [key, password] = await Promise.all([
    readParameter(ssm, iperf3PrivateKeyParameter),
    readParameter(ssm, iperf3PasswordParameter),
  ]);
  if (key !== null && password !== null) return false;
  const secrets = generate();
  for (const [name, value, description, exists] of [
    [
      iperf3PrivateKeyParameter,
      secrets.privateKeyPem,
      "lambda-netbench iperf3 server RSA private key",
      key !== null,
    ],
    [iperf3PasswordParameter, secrets.password, "lambda-netbench iperf3 password", password !== null],
  ] as const) {
    const parameter = { Name: name, Value: value, Type: "SecureString" as const, Description: description };
    // created with its tags (an organization's tag policy or SCP may refuse an untagged
    // PutParameter); SSM takes Tags only on creation, so one half of a pair is overwritten and
    // tagged after
    if (!exists) {
      await ssm.send(new PutParameterCommand({ ...parameter, Tags: tags }));
      continue;
    }
    await ssm.send(new PutParameterCommand({ ...parameter, Overwrite: true }));
    await ssm.send(new AddTagsToResourceCommand({ ResourceType: "Parameter", ResourceId: name, Tags: tags }));
  }
  return true;
}

/** What the server reported at boot (iperf3 version and the RSA padding it decrypts). */
export interface ServerStatus {
  version: string;
  padding: "pkcs1" | "oaep";
  /** The instance that published it: a status left by a replaced instance is not "ready". */
  instanceId: string | null;
  ports: string | null;
}

export async function readServerStatus(ssm: SSMClient): Promise<ServerStatus | null> {
  const raw = await readParameter(ssm, iperf3StatusParameter);
  if (raw === null) return null;
  let status: { version?: unknown; padding?: unknown; instanceId?: unknown; ports?: unknown };
  try {
    status = JSON.parse(raw);
  } catch {
    return null;
  }
  if (status.padding !== "pkcs1" && status.padding !== "oaep") return null;
  return {
    version: String(status.version ?? "unknown"),
    padding: status.padding,
    instanceId: typeof status.instanceId === "string" ? status.instanceId : null,
    ports: typeof status.ports === "string" ? status.ports : null,
  };
}

/** Credentials for the agent, fetched at run time; they travel in the invocation event only, never logged or recorded. */
export async function fetchIperf3Auth(ssm: SSMClient): Promise<Iperf3Auth | null> {
  const [privateKeyPem, password, status] = await Promise.all([
    readParameter(ssm, iperf3PrivateKeyParameter),
    readParameter(ssm, iperf3PasswordParameter),
    readServerStatus(ssm),
  ]);
  if (privateKeyPem === null || password === null || status === null) return null;
  return {
    username: iperf3Username,
    password,
    publicKeyPem: publicKeyFromPrivate(privateKeyPem),
    padding: status.padding,
  };
}
