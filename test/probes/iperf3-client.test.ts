import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { handleEvent } from "../../src/agent/handler.js";
import { buildIperf3Event, formatIperf3Summary } from "../../src/cli/commands/probe-iperf3.js";
import { expandPlan } from "../../src/plan/expand-plan.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { type Iperf3ClientOptions, runIperf3Client } from "../../src/probes/iperf3/client.js";
import type { Iperf3JsonReport } from "../../src/probes/iperf3/json-report.js";
import { isProbeError } from "../../src/probes/probe-error.js";
import { buildRecord } from "../../src/results/result-record.js";
import { freeLoopbackPort } from "../helpers/free-port.js";
import { loopbackClientOptions } from "./iperf3-support/client-options.js";
import { type StockServer, startStockServer } from "./iperf3-support/stock-server.js";

/** Our client against the stock iperf3 3.12 server on loopback. */
let server: StockServer;
before(async () => {
  server = await startStockServer({ bindAddress: "127.0.0.1" });
});
after(async () => {
  await server?.stop();
});
// each test starts once the server has ended the one before (a client never re-runs a measurement)
beforeEach(async () => {
  await server?.idle();
});

function options(overrides: Partial<Iperf3ClientOptions> = {}): Iperf3ClientOptions {
  return loopbackClientOptions(server.port, overrides);
}

/** sum_received comes from the other side and may lag or lead by what was in flight. */
function assertConsistent(sent: { bytes: number }, received: { bytes: number }, label: string) {
  assert.ok(sent.bytes > 0, `${label}: sum_sent.bytes > 0`);
  assert.ok(received.bytes > 0, `${label}: sum_received.bytes > 0`);
  assert.ok(received.bytes <= sent.bytes * 1.02 + 4 * 131_072, `${label}: received <= sent (+ in flight)`);
  assert.ok(received.bytes >= sent.bytes * 0.8, `${label}: received close to sent`);
}

function streamSockets(report: Iperf3JsonReport): number[] {
  return report.end.streams.map((stream) => stream.sender.socket as number);
}

describe("iperf3 client against stock iperf3 3.12", () => {
  test("-P 1: the -J document has the C client's shape and consistent sums", async () => {
    const result = await runIperf3Client(options());
    const { start, intervals, end } = result.report;
    assert.equal(start.connecting_to.port, server.port);
    assert.match(start.cookie, /^[a-z2-7]{36}$/);
    assert.equal(start.connected.length, 1);
    assert.equal(start.test_start.num_streams, 1);
    assert.equal(start.test_start.reverse, 0);
    assert.match(start.timestamp.time, /GMT$/);
    assert.ok(intervals.length >= 1 && intervals.length <= 2, `intervals: ${intervals.length}`);
    assert.equal(intervals[0]?.streams[0]?.sender, true);
    assert.equal(end.sum_sent.sender, true);
    assert.ok(Math.abs(end.sum_sent.seconds - 1) < 0.1, `sender seconds ${end.sum_sent.seconds}`);
    assertConsistent(end.sum_sent, end.sum_received, "-P 1");
    assert.equal(end.sum_sent.bits_per_second, (end.sum_sent.bytes * 8) / end.sum_sent.seconds);
    // the server's count over the server's duration
    assert.equal(end.streams[0]?.receiver.bytes, end.sum_received.bytes);
    assert.equal(end.streams[0]?.receiver.seconds, end.sum_sent.seconds);
    assert.equal(end.receiver_tcp_congestion !== undefined, true);
    assert.ok(end.cpu_utilization_percent.remote_total > 0);
    assert.ok(result.cpuSeconds > 0);
    assert.ok(result.retransmits === null || result.retransmits >= 0);
    // interval sums add up to (about) the total
    const intervalBytes = intervals.reduce((sum, entry) => sum + entry.sum.bytes, 0);
    assert.equal(intervalBytes, end.sum_sent.bytes);
  });

  test("-P 4: four streams with ids 1,3,4,5 in creation order", async () => {
    const result = await runIperf3Client(options({ parallel: 4 }));
    const { end, start } = result.report;
    assert.equal(end.streams.length, 4);
    assert.deepEqual(streamSockets(result.report), [5, 7, 9, 11]);
    assert.equal(start.connected.length, 4);
    for (const connected of start.connected) {
      assert.equal(connected.remote_port, server.port);
      assert.ok(connected.local_port > 0);
      assert.equal(connected.local_host, "127.0.0.1");
    }
    for (const stream of end.streams) {
      assert.ok(stream.sender.bytes > 0 && stream.receiver.bytes > 0);
      assert.equal(stream.sender.sender, true);
    }
    assertConsistent(end.sum_sent, end.sum_received, "-P 4");
    assert.equal(
      end.sum_sent.bytes,
      end.streams.reduce((sum, stream) => sum + stream.sender.bytes, 0),
    );
  });

  test("-R: the server sends, our count is sum_received, the server's retransmits arrive", async () => {
    const result = await runIperf3Client(options({ reverse: true, parallel: 2 }));
    const { end, start } = result.report;
    assert.equal(start.test_start.reverse, 1);
    assert.equal(end.sum_sent.sender, false);
    assert.equal(end.sum_received.sender, false);
    assertConsistent(end.sum_sent, end.sum_received, "-R");
    // sender_has_retransmits on a Linux server: retransmits and zeroed TCP_INFO extremes
    assert.equal(typeof end.sum_sent.retransmits, "number");
    assert.equal(end.streams[0]?.sender.max_snd_cwnd, 0);
    assert.ok(Math.abs(end.sum_received.seconds - 1) < 0.1, `receiver seconds ${end.sum_received.seconds}`);
    assert.ok(result.samples.bytes.length >= 3, "250 ms samples of received bytes");
  });

  test("--bidir -P 2: client-to-server ids first, then server-to-client, both sums", async () => {
    const result = await runIperf3Client(options({ bidir: true, parallel: 2 }));
    const { end, intervals } = result.report;
    assert.equal(end.streams.length, 4);
    assert.deepEqual(
      end.streams.map((stream) => stream.sender.sender),
      [true, true, false, false],
    );
    assertConsistent(end.sum_sent, end.sum_received, "bidir forward");
    assert.ok(end.sum_sent_bidir_reverse && end.sum_received_bidir_reverse);
    assertConsistent(end.sum_sent_bidir_reverse, end.sum_received_bidir_reverse, "bidir reverse");
    assert.equal(end.sum_sent_bidir_reverse.sender, false);
    assert.ok(intervals[0]?.sum_bidir_reverse, "intervals carry sum_bidir_reverse");
  });

  test("-O 1: omitted intervals are flagged and the counted period is the test time", async () => {
    const result = await runIperf3Client(options({ omitSeconds: 1, timeSeconds: 1 }));
    const { intervals, end, start } = result.report;
    assert.equal(start.test_start.omit, 1);
    assert.equal(intervals[0]?.sum.omitted, true);
    const counted = intervals.filter((entry) => !entry.sum.omitted);
    assert.ok(counted.length >= 1);
    assert.ok((counted[0]?.sum.start ?? 1) < 0.01, "times restart at 0 after the omit period");
    assert.ok(Math.abs(end.sum_sent.seconds - 1) < 0.1, `counted ${end.sum_sent.seconds} s, not 2`);
    assert.equal(
      counted.reduce((sum, entry) => sum + entry.sum.bytes, 0),
      end.sum_sent.bytes,
    );
    assertConsistent(end.sum_sent, end.sum_received, "-O 1");
  });

  test("-n: a byte limit ends the test early, just past the limit", async () => {
    const limit = 20 * 1_048_576;
    const result = await runIperf3Client(options({ byteLimit: limit, timeSeconds: 10 }));
    const { end, start } = result.report;
    assert.equal(start.test_start.bytes, limit);
    assert.ok(end.sum_sent.bytes >= limit, `sent ${end.sum_sent.bytes}`);
    assert.ok(end.sum_sent.bytes <= limit + 2 * 131_072, `sent ${end.sum_sent.bytes} overshoots`);
    assert.ok(end.sum_sent.seconds < 5, "ended on the limit, not on the time");
  });

  test("a second client while the server is busy gets a server-busy error", async () => {
    const first = runIperf3Client(options({ timeSeconds: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 700));
    const startMs = performance.now();
    await assert.rejects(runIperf3Client(options()), (error: unknown) => {
      assert.ok(isProbeError(error));
      assert.equal(error.kind, "server-busy");
      assert.match(error.message, /busy/);
      return true;
    });
    assert.ok(performance.now() - startMs < 1_000, "busy is reported at once");
    const result = await first;
    assert.ok(result.report.end.sum_sent.bytes > 0, "the running test was not disturbed");
  });

  test("the agent handler runs the probe: an upload record has the sent side as headline, both sides kept", async () => {
    const response = await handleEvent({
      probe: "iperf3",
      host: "127.0.0.1",
      port: server.port,
      timeSeconds: 1,
    });
    assert.equal(response.ok, true, JSON.stringify(response));
    if (!response.ok || !response.summary) return;
    const detail = response.detail as Iperf3JsonReport & { cpuSeconds: number };
    const summary = response.summary;
    assert.equal(summary.direction, "upload");
    // upload: the seed study's figure, sum_sent
    assert.equal(summary.bytes, detail.end.sum_sent.bytes);
    assert.equal(summary.seconds, detail.end.sum_sent.seconds);
    assert.ok(summary.samples.bytes.length >= 4);
    assert.equal(summary.samples.intervalSeconds, 0.25);
    assert.equal(summary.samples.startSeconds.length, summary.samples.bytes.length);
    assert.equal(summary.samples.durationSeconds.length, summary.samples.bytes.length);
    assert.equal(summary.cpuSeconds, detail.cpuSeconds);
    // the record built from this response carries both sides and the compact -J parts
    const cell = expandPlan(
      validatePlan({
        name: "record",
        targets: [{ platform: "local", profile: "default-625" }],
        memoryMb: [1024],
        probes: [{ kind: "iperf3", timeSeconds: 1 }],
      }),
    )[0];
    assert.ok(cell);
    const record = buildRecord({
      runId: "r",
      cell,
      repetition: 1,
      outcome: { response, failure: null, startedAt: response.startedAt, durationSeconds: 1 },
    });
    assert.equal(record.schemaVersion, 2);
    assert.deepEqual(record.sent, {
      bytes: detail.end.sum_sent.bytes,
      seconds: detail.end.sum_sent.seconds,
      bitsPerSecond: (detail.end.sum_sent.bytes * 8) / detail.end.sum_sent.seconds,
      retransmits: detail.end.sum_sent.retransmits ?? null,
    });
    assert.equal(record.received?.bytes, detail.end.sum_received.bytes);
    assert.equal(record.received?.seconds, detail.end.sum_received.seconds);
    assert.equal(record.bytes, record.sent?.bytes);
    assert.equal(record.wholeSeconds, null);
    const figures = record.iperf3;
    assert.ok(figures);
    assert.equal(figures.streams.length, 1);
    assert.equal(figures.streams[0]?.id, 1);
    assert.equal(figures.streams[0]?.sent.bytes, detail.end.sum_sent.bytes);
    assert.equal(figures.streams[0]?.received.bytes, detail.end.sum_received.bytes);
    // the interval sums recompute sum_sent (the C client's intervals cover the whole test)
    const intervalBytes = figures.intervals.reduce((sum, interval) => sum + interval.bytes, 0);
    assert.equal(intervalBytes, detail.end.sum_sent.bytes);
    assert.ok(JSON.stringify(figures).length < 16_384);
  });

  test("CLI: options become an event, the password comes from the environment, output in Mbit/s", async () => {
    const cliOptions = {
      host: "127.0.0.1",
      port: String(server.port),
      time: "1",
      parallel: "2",
      reverse: true,
      omit: "0",
      length: "131072",
      bytes: "0",
      connectTimeout: "2000",
      interval: "1",
      padding: "pkcs1",
    };
    const event = await buildIperf3Event(cliOptions, {});
    assert.equal(event.auth, undefined);
    assert.equal(event.parallel, 2);
    await assert.rejects(
      buildIperf3Event(
        { ...cliOptions, username: "u", passwordEnv: "LNBC_NO_SUCH_VAR", rsaPublicKeyPath: "/x" },
        {},
      ),
      /--password-env: environment variable LNBC_NO_SUCH_VAR is not set/,
    );
    await assert.rejects(buildIperf3Event({ ...cliOptions, username: "u" }, {}), /needs all of/);
    const response = await handleEvent(event);
    assert.equal(response.ok, true, JSON.stringify(response));
    const text = formatIperf3Summary(response);
    assert.match(text, /\[SUM\] 0\.00-1\.\d+ +sec +[\d.]+ MiB +[\d.]+ Mbit\/s +sender/);
    assert.match(text, /receiver/);
    assert.match(text, /CPU: [\d.]+ s \([\d.]+ s\/GiB\)/);
  });

  test("connection refused, unknown host and bad options are distinct errors", async () => {
    const closedPort = await freeLoopbackPort();
    const refused = await handleEvent({
      probe: "iperf3",
      host: "127.0.0.1",
      port: closedPort,
      timeSeconds: 1,
    });
    assert.equal(refused.ok ? "ok" : refused.error.kind, "connection-refused");
    const unknown = await handleEvent({ probe: "iperf3", host: "no-such-host.invalid", timeSeconds: 1 });
    assert.equal(unknown.ok ? "ok" : unknown.error.kind, "unreachable");
    const bad = await handleEvent({ probe: "iperf3", host: "127.0.0.1", parallel: 0 });
    assert.equal(bad.ok ? "ok" : bad.error.kind, "invalid-input");
    assert.match(bad.ok ? "" : bad.error.message, /parallel/);
  });
});
