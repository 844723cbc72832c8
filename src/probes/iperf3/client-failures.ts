import { isProbeError, ProbeError } from "../probe-error.js";
import { describeServerError, IperfErrno } from "./iperf-errno.js";
import { type ControlReader, isControlReadError } from "./protocol.js";

/** Where the client stands, for the messages: the server's address and the phase it waits in. */
export interface ClientContext {
  where: string;
  phase: string;
  /** The test carried an auth token. */
  auth: boolean;
  /** The phase right after our parameters (and auth token) went out. */
  afterParameters: boolean;
}

/**
 * Gives a failed control read its meaning in the current phase. A closed or reset connection
 * (reason `eof`) right after an auth token is the 3.21+ server's silent rejection; otherwise it
 * is a close "while <phase>". Malformed frames and overflows keep their own message; failures
 * of another kind (deadline, the run's own shutdown) pass through.
 */
export function controlFailure(error: unknown, context: ClientContext): Error {
  if (isControlReadError(error, "eof")) {
    if (context.auth && context.afterParameters) {
      return new ProbeError(
        "auth-failed",
        `${context.where} closed the connection after our auth token: wrong username/password or RSA padding (3.21+ servers reject silently; use pkcs1 for servers <= 3.16, oaep for 3.17+)`,
        { cause: error },
      );
    }
    return new ProbeError(
      "protocol",
      `${context.where} closed the control connection while ${context.phase} (${error.message})`,
      { cause: error },
    );
  }
  if (isProbeError(error) || error instanceof Error) return error;
  return new ProbeError("internal", String(error));
}

/** SERVER_ERROR: reads its codes (8 bytes; 3.12-3.18 send only 4 on auth failure, then EOF). */
export async function readServerError(reader: ControlReader, context: ClientContext): Promise<ProbeError> {
  let payload: Buffer;
  try {
    payload = await reader.readExact(8, true);
  } catch {
    return new ProbeError(
      "server-error",
      `${context.where} reported SERVER_ERROR without a code while ${context.phase}`,
    );
  }
  const iErrno = payload.length >= 4 ? payload.readInt32BE(0) : -1;
  const errno = payload.length >= 8 ? payload.readInt32BE(4) : undefined;
  const description = describeServerError(iErrno, errno);
  if (iErrno === IperfErrno.IEAUTHTEST) {
    return new ProbeError(
      "auth-failed",
      `${context.where} rejected our credentials: ${description} (wrong username/password, or RSA padding: pkcs1 for servers <= 3.16, oaep for 3.17+)`,
    );
  }
  return new ProbeError(
    "server-error",
    `${context.where} reported an error while ${context.phase}: ${description}`,
  );
}

/** A state byte no iperf3 server sends in this phase (or at all). */
export function unexpectedState(state: number, context: ClientContext): ProbeError {
  return new ProbeError(
    "protocol",
    `${context.where} sent an unknown state byte ${state} (0x${(state & 0xff).toString(16).padStart(2, "0")}) while ${context.phase}: not an iperf3 server?`,
  );
}
