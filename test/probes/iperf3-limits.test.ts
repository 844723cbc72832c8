import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAgentEvent } from "../../src/agent/event.js";
import { runIperf3Client } from "../../src/probes/iperf3/client.js";

const clientOptions = {
  host: "198.18.0.1",
  port: 5201,
  timeSeconds: 10,
  parallel: 1,
  reverse: false,
  bidir: false,
  omitSeconds: 0,
  blockBytes: 131_072,
  byteLimit: 0,
  connectTimeoutMs: 1_000,
  reportIntervalSeconds: 1,
};

// The event schema and the client (which the bucket probe and the CLI call directly) hold a test
// to one set of limits, and refuse the same values with the same words before any connection.
for (const [field, value, words] of [
  ["timeSeconds", 0, /timeSeconds: must be > 0/],
  ["parallel", 129, /parallel: .*<=128/],
  ["blockBytes", 1_048_577, /blockBytes: .*<=1048576/],
  ["omitSeconds", 601, /omitSeconds: .*<=600/],
] as const) {
  test(`${field} ${value}: refused alike by the event schema and the client`, async () => {
    assert.throws(() => parseAgentEvent({ probe: "iperf3", host: "198.18.0.1", [field]: value }), words);
    await assert.rejects(runIperf3Client({ ...clientOptions, [field]: value }), (error: Error) => {
      assert.match(error.message, words);
      return true;
    });
  });
}
