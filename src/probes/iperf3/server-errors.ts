/**
 * iperf3 `i_errno` codes a server sends after SERVER_ERROR (0xFE), with the text the C client
 * shows for them (protocol doc 2.5). The C client never transmits the text; we name the code.
 */
const serverErrorNames: Record<number, { name: string; text: string }> = {
  5: { name: "IEDURATION", text: "test duration outside the server's allowed range" },
  6: { name: "IENUMSTREAMS", text: "number of parallel streams outside the server's allowed range" },
  7: { name: "IEBLOCKSIZE", text: "block size outside the server's allowed range" },
  8: { name: "IEBUFSIZE", text: "socket buffer size too large" },
  10: { name: "IEMSS", text: "MSS too large" },
  12: { name: "IEOMIT", text: "omit period outside the server's allowed range" },
  15: { name: "IEBURST", text: "burst outside the server's allowed range" },
  21: { name: "IEBADTOS", text: "bad TOS value" },
  27: { name: "IETOTALRATE", text: "total required bandwidth is larger than the server limit" },
  37: {
    name: "IEMAXSERVERTESTDURATIONEXCEEDED",
    text: "test duration exceeds the server's --server-max-duration (or time is 0)",
  },
  110: { name: "IEMESSAGE", text: "server received an unknown control message" },
  114: { name: "IERECVPARAMS", text: "server could not receive the parameters (too large or not JSON)" },
  117: { name: "IERECVRESULTS", text: "server could not read our results" },
  141: { name: "IESETBUF2", text: "socket buffer size not set correctly" },
  142: { name: "IEAUTHTEST", text: "test authorization failed" },
  160: { name: "IESERVERTESTDURATIONEXPIRED", text: "server's test watchdog expired" },
  205: { name: "IESTREAMWRITE", text: "server failed writing a data stream" },
  206: { name: "IESTREAMREAD", text: "server failed reading a data stream" },
  208: { name: "IESTREAMID", text: "results refer to a stream id the server does not know" },
};

/** IEAUTHTEST: authentication failed (sent by 3.12-3.20; 3.21+ closes silently). */
export const IE_AUTH_TEST = 142;

export function describeServerError(iErrno: number, errno: number | undefined): string {
  const known = serverErrorNames[iErrno];
  const errnoText = errno === undefined ? "" : `, errno ${errno}`;
  return known
    ? `${known.name} (${iErrno}${errnoText}): ${known.text}`
    : `i_errno ${iErrno}${errnoText} (not in our table)`;
}
