import { defaultProvider } from "@aws-sdk/credential-provider-node";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import { AwsInputError } from "./aws-input.js";
import { awsRequestHandler } from "./http-transport.js";
import { loginAdvice } from "./login-advice.js";

/**
 * Credentials for the whole command. The standard chain (environment, profile, SSO, assumed
 * role, web identity, container, instance role), memoized by the SDK and refreshed before it
 * expires (five minutes ahead), so a run of hours keeps working on temporary credentials.
 * The clients get the provider itself, never a resolved snapshot.
 */
export function credentialChain(profile?: string): AwsCredentialIdentityProvider {
  // the instance-metadata step waits 1 s once, not the SDK's retries: no network stays fast;
  // the STS and SSO calls of assumed roles and SSO logins go through the environment's proxy;
  // a named profile is the chain's argument, as AWS_PROFILE would be (the environment's keys skipped)
  const requestHandler = awsRequestHandler();
  return defaultProvider({
    timeout: 1000,
    maxRetries: 0,
    ...(profile ? { profile } : {}),
    ...(requestHandler ? { clientConfig: { requestHandler } } : {}),
  });
}

/** What to do when no credentials are found: every way the chain looks for them (`profile`: the command's --profile). */
export function missingCredentialsHelp(profile?: string): string {
  const named = profile ?? process.env.AWS_PROFILE;
  return named
    ? `profile "${named}" (${profile ? "--profile" : "AWS_PROFILE"}) gave no credentials: ${loginAdvice(process.env, profile).text}, or check ~/.aws/config`
    : "set AWS_PROFILE (then `aws sso login` for SSO profiles), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), or run on a machine with a role";
}

/**
 * Resolves once, before any AWS API call, so "no credentials" is a clear error naming what to
 * set instead of a failure halfway through; returns the provider the clients then use: the
 * chain for `profile` (the command's --profile; the chain's own default without one).
 */
export async function resolveCredentials(
  profile?: string,
  provider: AwsCredentialIdentityProvider = credentialChain(profile),
): Promise<AwsCredentialIdentityProvider> {
  let credentials: AwsCredentialIdentity;
  try {
    credentials = await provider();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AwsInputError(
      "credentials",
      `no AWS credentials found (${reason}); ${missingCredentialsHelp(profile)}`,
    );
  }
  if (!credentials.accessKeyId || !credentials.secretAccessKey)
    throw new AwsInputError(
      "credentials",
      `no AWS credentials found (empty); ${missingCredentialsHelp(profile)}`,
    );
  return provider;
}

/** Errors AWS and the SDK give once temporary credentials or the SSO session have expired. */
// EC2 answers an expired session token with RequestExpired
