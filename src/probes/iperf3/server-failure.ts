/**
 * iperf3 `i_errno` codes our server sends after SERVER_ERROR (0xFE), as the C client numbers
 * them (iperf-protocol.md section 2.5), so a stock client prints its usual text for each.
 */
export const IperfErrno = {
  IEDURATION: 5,
  IENUMSTREAMS: 6,
  IEBLOCKSIZE: 7,
  IEOMIT: 12,
  /** "an option you are trying to set is not implemented yet": UDP and SCTP. */
  IEUNIMP: 13,
  IEENDCONDITIONS: 16,
  IEMESSAGE: 110,
  IERECVPARAMS: 114,
  IEAUTHTEST: 142,
  IESERVERTESTDURATIONEXPIRED: 160,
} as const;

/** A test the server refuses or aborts: sent to the client as 0xFE + int32 BE code + int32 BE errno. */
export class ServerFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly errno = 0,
  ) {
    super(message);
    this.name = "ServerFailure";
  }
}

export function encodeServerError(code: number, errno = 0): Buffer {
  const frame = Buffer.alloc(9);
  frame.writeInt8(-2, 0);
  frame.writeInt32BE(code, 1);
  frame.writeInt32BE(errno, 5);
  return frame;
}
