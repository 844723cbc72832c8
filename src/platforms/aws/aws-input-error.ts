/**
 * Bad input to an AWS command, found before any AWS call: the message names the field and what
 * is allowed. A module of its own, so the CLI's exit-code handling can know it without loading
 * the checks (and zod) on `--help`.
 */
export class AwsInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "AwsInputError";
  }
}
