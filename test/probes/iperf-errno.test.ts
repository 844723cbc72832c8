import assert from "node:assert/strict";
import { test } from "node:test";
import { describeServerError, IperfErrno } from "../../src/probes/iperf3/iperf-errno.js";

test("every code our server sends is one our client can name", () => {
  for (const [name, code] of Object.entries(IperfErrno)) {
    const text = describeServerError(code, undefined);
    assert.ok(text.startsWith(`${name} (${code})`), text);
  }
  // the two the client's table used to lack while the server sent them
  assert.match(describeServerError(13, 0), /^IEUNIMP \(13, errno 0\): .*UDP/);
  assert.match(describeServerError(16, undefined), /^IEENDCONDITIONS \(16\): /);
  assert.equal(describeServerError(999, 2), "i_errno 999, errno 2 (not in our table)");
});
