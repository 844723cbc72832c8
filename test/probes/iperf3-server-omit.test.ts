import assert from "node:assert/strict";
import { test } from "node:test";
import { ServerClock } from "../../src/probes/iperf3/server-clock.js";
import { formatServerIntervals } from "../../src/probes/iperf3/server-intervals.js";
import type { ServerStream } from "../../src/probes/iperf3/server-stream.js";

/** A receiving stream whose count the test sets (the clock only reads `sends` and `countedBytes`). */
function receivingStream(): { stream: ServerStream; count: { bytes: number } } {
  const count = { bytes: 0 };
  const stream = {
    sends: false,
    get countedBytes() {
      return count.bytes;
    },
    socket: { localPort: 5201, remotePort: 40000, remoteAddress: "127.0.0.1" },
  } as unknown as ServerStream;
  return { stream, count };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

test("the omit end closes the omit period's samples before the counters reset; the measured ones start at 0", () => {
  const { stream, count } = receivingStream();
  const clock = new ServerClock([stream], 1_000);
  clock.start();
  count.bytes = 3_000_000;
  clock.endOmit(() => {
    count.bytes = 0;
  });
  count.bytes = 2_000_000;
  clock.stop();
  assert.equal(sum(clock.omittedSamples.bytes), 3_000_000);
  assert.equal(sum(clock.samples.bytes), 2_000_000);
  assert.equal(clock.samples.startSeconds[0], 0);
});

test("without -O there are no omitted samples", () => {
  const { stream, count } = receivingStream();
  const clock = new ServerClock([stream], 1_000);
  clock.start();
  count.bytes = 1_000_000;
  clock.stop();
  assert.deepEqual(clock.omittedSamples.bytes, []);
  assert.equal(sum(clock.samples.bytes), 1_000_000);
});

test("omitted intervals print as the C server prints them, ending in (omitted)", () => {
  const samples = { intervalSeconds: 1, startSeconds: [0], durationSeconds: [1], bytes: [26_214_400] };
  assert.deepEqual(formatServerIntervals(samples, true), [
    "[SUM] 0.000-1.000 sec 25.00 MBytes 209.7 Mbits/sec  (omitted)",
  ]);
  assert.deepEqual(formatServerIntervals(samples), ["[SUM] 0.000-1.000 sec 25.00 MBytes 209.7 Mbits/sec"]);
});
