import { defaultProvider } from "@aws-sdk/credential-provider-node";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import { AwsInputError } from "./aws-input.js";

/**
 * Resolves credentials once, before any AWS API call, so "no credentials" is a clear error
 * naming what to set instead of a failure halfway through a deploy.
 */
export async function resolveCredentials(
  provider: AwsCredentialIdentityProvider = defaultProvider(),
): Promise<AwsCredentialIdentity> {
  try {
    const credentials = await provider();
    if (!credentials.accessKeyId || !credentials.secretAccessKey) throw new Error("empty credentials");
    return credentials;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AwsInputError(
      "credentials",
      `no AWS credentials found (${reason}); set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run on a machine with a role`,
    );
  }
}
