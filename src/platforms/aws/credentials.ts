import { defaultProvider } from "@aws-sdk/credential-provider-node";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import { RunPausedError } from "../../runner/platform.js";
import { AwsInputError } from "./aws-input.js";
import { errorName } from "./backoff.js";
import { loginAdvice } from "./login-advice.js";

/**
 * Credentials for the whole command. The standard chain (environment, profile, SSO, assumed
 * role, web identity, container, instance role), memoized by the SDK and refreshed before it
 * expires (five minutes ahead), so a run of hours keeps working on temporary credentials.
 * The clients get the provider itself, never a resolved snapshot.
 */
export function credentialChain(): AwsCredentialIdentityProvider {
  // the instance-metadata step waits 1 s once, not the SDK's retries: no network stays fast
  return defaultProvider({ timeout: 1000, maxRetries: 0 });
}

/** What to do when no credentials are found: every way the chain looks for them. */
export function missingCredentialsHelp(): string {
  const profile = process.env.AWS_PROFILE;
  return profile
    ? `profile "${profile}" (AWS_PROFILE) gave no credentials: ${loginAdvice().text}, or check ~/.aws/config`
    : "set AWS_PROFILE (then `aws sso login` for SSO profiles), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or run on a machine with a role";
}

/**
 * Resolves once, before any AWS API call, so "no credentials" is a clear error naming what to
 * set instead of a failure halfway through; returns the provider the clients then use.
 */
export async function resolveCredentials(
  provider: AwsCredentialIdentityProvider = credentialChain(),
): Promise<AwsCredentialIdentityProvider> {
  let credentials: AwsCredentialIdentity;
  try {
    credentials = await provider();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AwsInputError(
      "credentials",
      `no AWS credentials found (${reason}); ${missingCredentialsHelp()}`,
    );
  }
  if (!credentials.accessKeyId || !credentials.secretAccessKey)
    throw new AwsInputError("credentials", `no AWS credentials found (empty); ${missingCredentialsHelp()}`);
  return provider;
}

/** Errors AWS and the SDK give once temporary credentials or the SSO session have expired. */
const expiredErrorNames = new Set(["ExpiredTokenException", "ExpiredToken", "TokenRefreshRequired"]);

export function isExpiredCredentials(error: unknown): boolean {
  const name = errorName(error);
  if (expiredErrorNames.has(name)) return true;
  const message = error instanceof Error ? error.message : "";
  // the SSO / token providers throw these when the login itself has expired
  return (
    (name === "CredentialsProviderError" || name === "TokenProviderError") &&
    /expired|refresh|log ?in/i.test(message)
  );
}

/** Thrown when the run must stop for a new login: nothing of the failed call is recorded. */
export class CredentialsExpiredError extends RunPausedError {
  /** The exact command that logs in again (`aws sso login --profile X`), when there is one. */
  readonly loginCommand: string | null;
  constructor(cause: unknown) {
    const advice = loginAdvice();
    super(
      `AWS credentials expired (${errorName(cause)}: ${cause instanceof Error ? cause.message : String(cause)}); ${advice.text}`,
    );
    this.name = "CredentialsExpiredError";
    this.loginCommand = advice.command;
  }
}
