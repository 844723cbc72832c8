/**
 * iperf3 `i_errno` codes a server sends after SERVER_ERROR (0xFE), numbered as the C client
 * numbers them (protocol doc 2.5), with the text the C client shows for each. One table for both
 * sides: our server sends these codes (so a stock client prints its usual text) and our client
 * names any of them it receives. The C client never transmits the text; we name the code.
 */
const iperfErrors = {
  IEDURATION: { code: 5, text: "test duration outside the server's allowed range" },
  IENUMSTREAMS: { code: 6, text: "number of parallel streams outside the server's allowed range" },
  IEBLOCKSIZE: { code: 7, text: "block size outside the server's allowed range" },
  IEBUFSIZE: { code: 8, text: "socket buffer size too large" },
  IEMSS: { code: 10, text: "MSS too large" },
  IEOMIT: { code: 12, text: "omit period outside the server's allowed range" },
  /** UDP and SCTP, which our server refuses. */
  IEUNIMP: { code: 13, text: "an option the server does not implement (UDP and SCTP)" },
  IEBURST: { code: 15, text: "burst outside the server's allowed range" },
  IEENDCONDITIONS: { code: 16, text: "only one test end condition (-t, -n, -k) may be given" },
  IEBADTOS: { code: 21, text: "bad TOS value" },
  IETOTALRATE: { code: 27, text: "total required bandwidth is larger than the server limit" },
  IEMAXSERVERTESTDURATIONEXCEEDED: {
    code: 37,
    text: "test duration exceeds the server's --server-max-duration (or time is 0)",
  },
  IEMESSAGE: { code: 110, text: "server received an unknown control message" },
  IERECVPARAMS: { code: 114, text: "server could not receive the parameters (too large or not JSON)" },
  IERECVRESULTS: { code: 117, text: "server could not read our results" },
  IESETBUF2: { code: 141, text: "socket buffer size not set correctly" },
  /** Sent by 3.12-3.20 on a failed authentication; 3.21+ closes silently. */
  IEAUTHTEST: { code: 142, text: "test authorization failed" },
  IESERVERTESTDURATIONEXPIRED: { code: 160, text: "server's test watchdog expired" },
  IESTREAMWRITE: { code: 205, text: "server failed writing a data stream" },
  IESTREAMREAD: { code: 206, text: "server failed reading a data stream" },
  IESTREAMID: { code: 208, text: "results refer to a stream id the server does not know" },
} as const;

type IperfErrorName = keyof typeof iperfErrors;

/** The codes by name, for the side that sends them. */
export const IperfErrno = Object.fromEntries(
  Object.entries(iperfErrors).map(([name, { code }]) => [name, code]),
) as { readonly [Name in IperfErrorName]: (typeof iperfErrors)[Name]["code"] };

const byCode = new Map<number, { name: string; text: string }>(
  Object.entries(iperfErrors).map(([name, { code, text }]) => [code, { name, text }]),
);

/** What a received code means, for the side that reads them. */
export function describeServerError(iErrno: number, errno: number | undefined): string {
  const known = byCode.get(iErrno);
  const errnoText = errno === undefined ? "" : `, errno ${errno}`;
  return known
    ? `${known.name} (${iErrno}${errnoText}): ${known.text}`
    : `i_errno ${iErrno}${errnoText} (not in our table)`;
}
