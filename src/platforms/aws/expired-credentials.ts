import { RunPausedError } from "../../runner/platform.js";
import { errorName } from "./backoff.js";
import { loginAdvice } from "./login-advice.js";

/*
 * Expired credentials, told apart from other failures: a leaf of what the credential chain
 * needs, so the recorder's Lambda bundle (which invokes the agent and pauses on an expired
 * login) does not pull in the CLI's proxy transport and its 25 packages.
 */

const expiredErrorNames = new Set([
  "ExpiredTokenException",
  "ExpiredToken",
  "TokenRefreshRequired",
  "RequestExpired",
]);

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
  /** `profile`: the one the clients were given (the command's --profile), if any. */
  constructor(cause: unknown, profile?: string) {
    const advice = loginAdvice(process.env, profile);
    super(
      `AWS credentials expired (${errorName(cause)}: ${cause instanceof Error ? cause.message : String(cause)}); ${advice.text}`,
    );
    this.name = "CredentialsExpiredError";
    this.loginCommand = advice.command;
  }
}
