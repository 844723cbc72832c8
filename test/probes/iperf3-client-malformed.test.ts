import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, test } from "node:test";
import { type Iperf3ClientOptions, runIperf3Client } from "../../src/probes/iperf3/client.js";
import { encodeJson } from "../../src/probes/iperf3/protocol.js";
import { isProbeError, type ProbeErrorKind } from "../../src/probes/probe-error.js";
import { loopbackClientOptions } from "./iperf3-support/client-options.js";
import {
  acceptParameters,
  type FakeServer,
  startFakeServer,
  startTest,
} from "./iperf3-support/fake-server.js";

/** Our client against fake servers that misbehave: clear errors, bounded time, bounded memory. */
function options(port: number, overrides: Partial<Iperf3ClientOptions> = {}): Iperf3ClientOptions {
  // A long deadline margin: a test that is not about the deadline must fail for what its server
  // does, and with a margin of 1 s a process held off the CPU met the deadline first ("stuck
  // waiting for EXCHANGE_RESULTS" where a 4 GiB length prefix was to be refused;
  // scripts/starved-tests.mjs). The deadline's own tests set theirs (DEADLINE).
  return loopbackClientOptions(port, { connectTimeoutMs: 500, deadlineMarginSeconds: 30, ...overrides });
}

/**
 * The deadline tests' options: connect timeout 0.5 s + test 1 s + margin 1 s. A deadline a
 * starved process meets late is still bounded: the checks allow it LATE_SECONDS more.
 */
const DEADLINE = { deadlineMarginSeconds: 1 } as const;
const DEADLINE_SECONDS = 2.5;
const LATE_SECONDS = 10;
function assertDeadlineKept(seconds: number): void {
  assert.ok(
    seconds >= DEADLINE_SECONDS - 0.1 && seconds < DEADLINE_SECONDS + LATE_SECONDS,
    `took ${seconds} s for a ${DEADLINE_SECONDS} s deadline`,
  );
}

/** Runs the client, expects a ProbeError of `kind` matching `message`, and returns the elapsed seconds. */
async function expectFailure(
  server: FakeServer,
  kind: ProbeErrorKind,
  message: RegExp,
  overrides: Partial<Iperf3ClientOptions> = {},
): Promise<number> {
  const startMs = performance.now();
  try {
    await assert.rejects(runIperf3Client(options(server.port, overrides)), (error: unknown) => {
      assert.ok(isProbeError(error), `not a ProbeError: ${String(error)}`);
      assert.equal(error.kind, kind, error.message);
      assert.match(error.message, message);
      return true;
    });
    // the client destroyed its control socket: the fake server sees it close
    await Promise.race([
      server.controlClosed,
      new Promise((_, reject) => setTimeout(() => reject(new Error("control socket left open")), 10_000)),
    ]);
    return (performance.now() - startMs) / 1000;
  } finally {
    await server.close();
  }
}

describe("iperf3 client against malformed peers", () => {
  test("garbage instead of a state byte is a protocol error", async () => {
    const server = await startFakeServer(async (control) => {
      control.write("HTTP/1.1 400 Bad Request\r\n\r\n");
    });
    // a 30 s test: a client that read past the garbage would end on the deadline (kind "deadline"),
    // so the kind says the byte itself failed it, however late a busy host runs the test
    await expectFailure(server, "protocol", /unknown state byte 72 .*not an iperf3 server/, {
      timeSeconds: 30,
    });
  });

  test("a huge JSON length prefix is refused before allocating", async () => {
    const server = await startFakeServer(async (control, reader, context) => {
      await acceptParameters(control, reader);
      await startTest(control, context, 1);
      assert.equal(await reader.readState(), 4);
      control.write(Buffer.from([13]));
      await reader.readJson(1_000_000);
      control.write(Buffer.from([0xff, 0xff, 0xff, 0xf0]));
    });
    await expectFailure(server, "protocol", /JSON length of 4294967280 bytes/);
  });

  test("a flood of bytes in a results frame is bounded (16 MiB) and fails as unparsable", async () => {
    const before = process.memoryUsage().arrayBuffers;
    let peakArrayBuffers = before;
    const sampler = setInterval(() => {
      peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers);
    }, 5);
    try {
      const server = await startFakeServer(async (control, reader, context) => {
        await acceptParameters(control, reader);
        await startTest(control, context, 1);
        assert.equal(await reader.readState(), 4);
        control.write(Buffer.from([13]));
        await reader.readJson(1_000_000);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(16 * 1024 * 1024);
        control.write(length);
        const junk = Buffer.alloc(1024 * 1024, 0x41);
        // 40 MiB offered: the client must stop after its 16 MiB bound
        for (let i = 0; i < 40 && !control.destroyed; i += 1) {
          if (!control.write(junk)) await new Promise((resolve) => control.once("drain", resolve));
        }
      });
      await expectFailure(server, "protocol", /does not parse|more than .* unread bytes/, {
        timeSeconds: 0.3,
      });
    } finally {
      clearInterval(sampler);
    }
    const grownMiB = (peakArrayBuffers - before) / 1_048_576;
    assert.ok(grownMiB < 80, `array buffers grew by ${grownMiB.toFixed(0)} MiB`);
  });

  test("a server closing after the parameters is a protocol error naming the phase", async () => {
    const server = await startFakeServer(async (control, reader) => {
      await acceptParameters(control, reader);
      control.end();
    });
    await expectFailure(server, "protocol", /closed the control connection while waiting for CREATE_STREAMS/);
  });

  test("a server closing mid-test fails at once, not at the end of the test", async () => {
    const server = await startFakeServer(async (control, reader, context) => {
      await acceptParameters(control, reader);
      await startTest(control, context, 2);
      setTimeout(() => control.destroy(), 300);
    });
    // a 60 s test: noticing the close only at its end would take the whole minute
    const seconds = await expectFailure(server, "protocol", /closed the control connection while running/, {
      parallel: 2,
      timeSeconds: 60,
    });
    assert.ok(seconds < 10, `took ${seconds} s`);
  });

  test("a silent server hits the hard deadline (connect timeout + time + margin)", async () => {
    const server = await startFakeServer(async () => {});
    const seconds = await expectFailure(
      server,
      "deadline",
      /deadline \(stuck waiting for PARAM_EXCHANGE\)/,
      DEADLINE,
    );
    assertDeadlineKept(seconds);
  });

  test("a server that stops answering after TEST_END also hits the deadline", async () => {
    const server = await startFakeServer(async (control, reader, context) => {
      await acceptParameters(control, reader);
      await startTest(control, context, 1);
    });
    const seconds = await expectFailure(server, "deadline", /waiting for EXCHANGE_RESULTS/, DEADLINE);
    assertDeadlineKept(seconds);
  });

  test("0xFF first is server-busy; SERVER_ERROR 142 in 4 bytes is auth-failed; 141 names IESETBUF2", async () => {
    const busy = await startFakeServer(async (control) => {
      control.end(Buffer.from([0xff]));
    });
    await expectFailure(busy, "server-busy", /busy/);
    const auth = await startFakeServer(async (control, reader) => {
      await acceptParameters(control, reader);
      control.end(Buffer.from([0xfe, 0, 0, 0, 142]));
    });
    await expectFailure(auth, "auth-failed", /IEAUTHTEST \(142\)/);
    const setBuffer = await startFakeServer(async (control, reader) => {
      await acceptParameters(control, reader);
      control.end(Buffer.from([0xfe, 0, 0, 0, 141, 0, 0, 0, 9]));
    });
    await expectFailure(setBuffer, "server-error", /IESETBUF2 \(141, errno 9\)/);
  });

  test("a silent close after our auth token (3.21+ auth failure) is auth-failed", async () => {
    const server = await startFakeServer(async (control, reader) => {
      const parameters = await acceptParameters(control, reader);
      assert.equal(typeof parameters.authtoken, "string");
      control.end();
    });
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
    await expectFailure(server, "auth-failed", /after our auth token.*padding/, {
      auth: { username: "mario", password: "rossi", publicKeyPem, padding: "oaep" },
    });
  });

  test("SERVER_TERMINATE during the test is server-terminated", async () => {
    const server = await startFakeServer(async (control, reader, context) => {
      await acceptParameters(control, reader);
      await startTest(control, context, 1);
      setTimeout(() => control.write(Buffer.from([11])), 200);
    });
    await expectFailure(server, "server-terminated", /terminated while running/, { timeSeconds: 3 });
  });

  test("a data stream answered with ACCESS_DENIED is a clear error", async () => {
    const server = await startFakeServer(
      async (control, reader) => {
        await acceptParameters(control, reader);
        control.write(Buffer.from([10]));
      },
      { rejectData: Buffer.from([0xff]) },
    );
    await expectFailure(server, "protocol", /rejected data stream 1 \(ACCESS_DENIED/);
  });

  test("3.12 and 3.21 quirks are tolerated: huge -1, combined states, trailing SERVER_ERROR", async () => {
    let clientResults: Record<string, unknown> = {};
    let parameters: Record<string, unknown> = {};
    const server = await startFakeServer(async (control, reader, context) => {
      parameters = await acceptParameters(control, reader);
      await startTest(control, context, 1);
      assert.equal(await reader.readState(), 4);
      control.write(Buffer.from([13]));
      clientResults = (await reader.readJson(1_000_000)) as Record<string, unknown>;
      // 3.12 prints -1 as an unsigned 64-bit number; results and DISPLAY_RESULTS share a write
      const results =
        '{"cpu_util_total":1.5,"cpu_util_user":0.5,"cpu_util_system":1,"sender_has_retransmits":18446744073709551615,' +
        '"congestion_used":"cubic","streams":[{"id":1,"bytes":1000000,"retransmits":18446744073709551615,"jitter":0,' +
        '"errors":0,"packets":0,"start_time":0,"end_time":0.5}],"server_output_text":"sticky output"}';
      const frame = Buffer.alloc(4);
      frame.writeUInt32BE(Buffer.byteLength(results));
      control.write(Buffer.concat([frame, Buffer.from(results), Buffer.from([14])]));
      assert.equal(await reader.readState(), 16);
      // 3.21's spurious trailer after IPERF_DONE
      control.end(Buffer.from([0xfe, 0, 0, 0, 205, 0, 0, 0, 9]));
    });
    try {
      const result = await runIperf3Client(options(server.port, { timeSeconds: 0.5 }));
      const { end } = result.report;
      assert.equal(end.sum_received.bytes, 1_000_000);
      assert.equal(end.sum_received.seconds, 0.5);
      assert.equal(end.sum_received.bits_per_second, 16_000_000);
      assert.equal(end.receiver_tcp_congestion, "cubic");
      assert.equal(result.report.server_output_text, "sticky output");
      assert.equal(end.sum_sent.retransmits === undefined || end.sum_sent.retransmits >= 0, true);
    } finally {
      await server.close();
    }
    // what we sent: presence flags absent, every results key a number, omitted_* as a pair
    assert.equal("reverse" in parameters, false);
    assert.equal(parameters.len, 131_072);
    assert.equal(parameters.time, 0.5);
    const stream = (clientResults.streams as Record<string, unknown>[])[0] ?? {};
    for (const key of [
      "id",
      "bytes",
      "retransmits",
      "jitter",
      "errors",
      "packets",
      "omitted_errors",
      "omitted_packets",
    ]) {
      assert.equal(typeof stream[key], "number", key);
    }
    assert.equal(stream.id, 1);
    assert.equal(clientResults.sender_has_retransmits, 0);
    assert.doesNotMatch(JSON.stringify(clientResults), /null/);
    assert.equal(encodeJson(clientResults).length > 4, true);
  });
});
