/**
 * Every probe failure is a ProbeError with a stable `kind`, so the runner can record
 * failures by kind and a user can tell "server busy" from "wrong credentials" at a glance.
 */
export type ProbeErrorKind =
  | "invalid-input"
  | "connection-refused"
  | "unreachable"
  | "connect-timeout"
  | "server-busy"
  | "auth-failed"
  | "server-error"
  | "server-terminated"
  | "protocol"
  | "deadline"
  | "not-found"
  | "access-denied"
  | "signature-mismatch"
  | "precondition-failed"
  | "http-error"
  | "retries-exhausted"
  | "out-of-memory"
  | "internal";

export class ProbeError extends Error {
  readonly kind: ProbeErrorKind;

  constructor(kind: ProbeErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProbeError";
    this.kind = kind;
  }
}

export function isProbeError(error: unknown): error is ProbeError {
  return error instanceof ProbeError;
}
