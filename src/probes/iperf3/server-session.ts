import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import type { IntervalSamples } from "../interval-sampler.js";
import { IperfErrno } from "./iperf-errno.js";
import {
  ControlReader,
  encodeJson,
  encodeState,
  isControlReadError,
  MAX_PARAMS_JSON_BYTES,
  State,
} from "./protocol.js";
import { checkAuthToken, type ServerAuth } from "./server-auth.js";
import { ServerClock } from "./server-clock.js";
import { denyAccess, peerAddress } from "./server-connection.js";
import { encodeServerError, ServerFailure } from "./server-failure.js";
import { formatServerIntervals, SERVER_SAMPLE_INTERVAL_MS } from "./server-intervals.js";
import { parseTestParams, type TestParams } from "./server-params.js";
import type { ReceivePath } from "./server-receive.js";
import { buildServerResults, formatTestSummary, streamId } from "./server-results.js";
import { SendBudget, ServerStream } from "./server-stream.js";
import { type ServerTimeouts, SessionWatchdogs } from "./server-watchdogs.js";

export type SessionPhase = "params" | "create-streams" | "running" | "results" | "done";

const MAX_CLIENT_RESULTS_BYTES = 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;

/** The client stopped the test (CLIENT_TERMINATE), or the server is shutting down. */
class TestInterrupted extends Error {}

export interface SessionOptions {
  auth?: ServerAuth;
  log: (line: string) => void;
  timeouts: ServerTimeouts;
  /** Interval of the server's own samples; 1 s when omitted. */
  sampleIntervalMs?: number;
  /** How data streams count received bytes (chosen by the server's start-up self-test). */
  receivePath: ReceivePath;
  /** Per-flow cap on every data stream, payload bits per second (the lab's flow cap); null for none. */
  flowCapBitsPerSecond?: number | null;
}

/** What the server measured in one test, for whoever started it (the CLI, tests). */
export interface ServerTestReport {
  client: string;
  /** Bytes counted over all streams (received, or handed to the kernel) in the measured period. */
  bytes: number;
  seconds: number;
  /** The counted bytes per interval, each with its measured start and length. */
  samples: IntervalSamples;
}

/** What the parameter exchange settled for the whole test. */
interface AgreedTest {
  params: TestParams;
  /** The test-wide -n / -k limits every sending stream draws on. */
  budget: SendBudget;
  /** The block every sending stream writes (random bytes, as the C server's). */
  block: Buffer;
}

/**
 * The control loop of one iperf3 test on the server side (iperf_handle_message_server in C),
 * from the control connection's cookie to IPERF_DONE (protocol doc 2.3 and section 10): each
 * step one method. The clock and samples (ServerClock), the timers (SessionWatchdogs) and the
 * results and summary (server-results.ts) live apart. `run()` never throws: every failure is
 * logged, reported to the client where the protocol allows, and ends with all sockets closed.
 */
export class ServerSession {
  phase: SessionPhase = "params";
  private readonly reader: ControlReader;
  private readonly client: string;
  private readonly streams: ServerStream[] = [];
  private readonly clock: ServerClock;
  private readonly watchdogs = new SessionWatchdogs((error) => this.interrupt(error));
  private agreed: AgreedTest | undefined;
  private interrupted: Error | undefined;
  private streamsConnecting: { ready: () => void; failed: (error: Error) => void } | undefined;
  /** The client's next state byte, read from CREATE_STREAMS on (it may speak while streams connect). */
  private nextState: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly control: Socket,
    private readonly cookie: Buffer,
    private readonly options: SessionOptions,
  ) {
    this.client = peerAddress(control);
    this.clock = new ServerClock(this.streams, options.sampleIntervalMs ?? SERVER_SAMPLE_INTERVAL_MS);
    control.setNoDelay(true);
    control.setKeepAlive(true, 30_000);
    this.reader = new ControlReader(control, `client ${this.client}`, MAX_CLIENT_RESULTS_BYTES + 64);
    control.resume();
  }

  /** Offers a connection that arrived with a complete cookie during CREATE_STREAMS. */
  offerDataConnection(socket: Socket, cookie: Buffer): void {
    const agreed = this.agreed;
    if (this.phase !== "create-streams" || !agreed || !cookie.equals(this.cookie)) {
      denyAccess(socket);
      return;
    }
    const { params, budget, block } = agreed;
    const index = this.streams.length;
    const sends = params.reverse || (params.bidirectional && index >= params.parallel);
    if (params.noDelay) socket.setNoDelay(true);
    this.streams.push(
      new ServerStream(
        streamId(index),
        socket,
        sends,
        block,
        budget,
        params.bandwidthBitsPerSecond,
        this.options.receivePath,
        this.options.flowCapBitsPerSecond ?? null,
      ),
    );
    if (this.streams.length === this.expectedStreams()) this.streamsConnecting?.ready();
  }

  /** The test's figures as the server measured them (empty samples before TEST_END). */
  report(): ServerTestReport {
    return {
      client: this.client,
      bytes: this.streams.reduce((sum, stream) => sum + stream.countedBytes, 0),
      seconds: this.clock.durationSeconds,
      samples: this.clock.samples,
    };
  }

  /** Server shutdown: SERVER_TERMINATE to a client mid-test, then close everything. */
  terminate(): void {
    if (this.phase === "create-streams" || this.phase === "running") {
      this.control.write(encodeState(State.SERVER_TERMINATE));
    }
    this.interrupt(new TestInterrupted("the server is shutting down"));
  }

  async run(): Promise<void> {
    try {
      this.agreed = await this.exchangeParams();
      await this.createStreams();
      const state = await this.runTest(this.agreed.params);
      if (state === State.TEST_END) await this.exchangeResults();
    } catch (error) {
      this.fail(error);
    } finally {
      this.phase = "done";
      this.watchdogs.clear();
      for (const stream of this.streams) stream.destroy();
      this.reader.close(new Error("test over"));
      this.control.end();
      setTimeout(() => this.control.destroy(), CLOSE_GRACE_MS).unref();
    }
  }

  private async exchangeParams(): Promise<AgreedTest> {
    this.control.write(encodeState(State.PARAM_EXCHANGE));
    const { paramsMs } = this.options.timeouts;
    const timer = this.watchdogs.arm(paramsMs, () => new Error(`no parameters within ${paramsMs / 1000} s`));
    const document = await this.readParamsDocument();
    this.watchdogs.disarm(timer);
    const params = parseTestParams(document);
    if (this.options.auth) {
      const user = checkAuthToken(params.authToken, this.options.auth, Math.floor(Date.now() / 1000));
      this.options.log(`client ${this.client}: authenticated as ${user}`);
    }
    if (params.ignored.length > 0) {
      this.options.log(
        `client ${this.client}: ignoring ${params.ignored.join(", ")} (socket options Node cannot set)`,
      );
    }
    return {
      params,
      budget: new SendBudget(params.byteLimit, params.blockLimit),
      // the C server fills its send buffer with random bytes, so compression on the path gains nothing
      block: params.reverse || params.bidirectional ? randomBytes(params.blockBytes) : Buffer.alloc(0),
    };
  }

  /** The parameters frame; a bad length or body is the C server's IERECVPARAMS, told to the client. */
  private async readParamsDocument(): Promise<unknown> {
    try {
      return await this.reader.readJson(MAX_PARAMS_JSON_BYTES);
    } catch (error) {
      if (!isControlReadError(error, "malformed")) throw error;
      throw new ServerFailure(IperfErrno.IERECVPARAMS, `parameters refused: ${error.message}`);
    }
  }

  private async createStreams(): Promise<void> {
    const expected = this.expectedStreams();
    const ready = new Promise<void>((resolve, reject) => {
      this.streamsConnecting = { ready: resolve, failed: reject };
    });
    this.phase = "create-streams";
    this.control.write(encodeState(State.CREATE_STREAMS));
    const { streamsMs } = this.options.timeouts;
    const timer = this.watchdogs.arm(
      streamsMs,
      () =>
        new Error(
          `only ${this.streams.length} of ${expected} data streams connected within ${streamsMs / 1000} s`,
        ),
    );
    // the control connection may end or say CLIENT_TERMINATE while streams connect
    this.nextState = this.reader.readState();
    this.nextState.catch(() => {});
    const controlSpoke = this.nextState.then((state) => {
      throw this.unexpectedState(state, "while the data streams connected");
    });
    controlSpoke.catch(() => {}); // once the streams are in, the test phase reads this state
    await Promise.race([ready, controlSpoke]);
    this.watchdogs.disarm(timer);
  }

  /** TEST_START, TEST_RUNNING, then wait for the client's next state byte. */
  private async runTest(params: TestParams): Promise<number> {
    this.phase = "running";
    // The start mark and the omit timer come before TEST_START goes out: writing it wakes the
    // client, which may take the CPU from us for as long as a busy host likes, and marks taken
    // after that start our omit period and our count late against the client's (two busy
    // loops beside a lowest-priority pair: received/sent 1.4-1.7 on -R -O 1 at 200 Mbit/s).
    const startMs = performance.now();
    this.clock.start(startMs);
    if (params.omitSeconds > 0) {
      this.watchdogs.arm(params.omitSeconds * 1000, () => {
        this.endOmit();
        return undefined;
      });
    }
    if (params.timeSeconds > 0) this.armDurationWatchdog(params);
    this.control.write(Buffer.from([State.TEST_START, State.TEST_RUNNING]));
    for (const stream of this.streams) stream.start(startMs);
    this.watchdogs.watchIdle(
      this.options.timeouts.idleMs,
      () => this.streams.reduce((sum, stream) => sum + stream.rawReceivedBytes, 0) + this.sentBytes(),
    );
    const state = await this.nextState;
    for (const stream of this.streams) stream.stop();
    this.clock.stop();
    this.watchdogs.clear();
    if (state === State.TEST_END) return state;
    if (state === State.CLIENT_TERMINATE || state === State.IPERF_DONE) {
      this.options.log(`${this.summary()} (interrupted by the client)`);
      return state;
    }
    throw this.unexpectedState(state, "during the test");
  }

  /** End of -O: the sent totals, every stream's counters and the clock start again. */
  private endOmit(): void {
    this.agreed?.budget.reset();
    this.clock.endOmit(() => {
      for (const stream of this.streams) stream.resetCounters();
    });
  }

  /** The C server's watchdog: a test with a time limit must see TEST_END within time + omit + margin. */
  private armDurationWatchdog(params: TestParams): void {
    const margin = this.options.timeouts.watchdogMarginSeconds;
    const limitSeconds = params.timeSeconds + params.omitSeconds + margin;
    this.watchdogs.arm(
      limitSeconds * 1000,
      () =>
        new ServerFailure(
          IperfErrno.IESERVERTESTDURATIONEXPIRED,
          `no TEST_END within time + omit + ${margin} = ${limitSeconds} s`,
        ),
    );
  }

  private async exchangeResults(): Promise<void> {
    // the C server closes its data sockets at TEST_END: in-flight bytes are not counted
    for (const stream of this.streams) stream.destroy();
    this.phase = "results";
    this.control.write(encodeState(State.EXCHANGE_RESULTS));
    this.watchdogs.arm(
      this.options.timeouts.resultsMs,
      () => new Error("no results from the client in time"),
    );
    await this.reader.readJson(MAX_CLIENT_RESULTS_BYTES); // the client's view; ours is what we log
    const summary = this.summary();
    const intervalLines = [
      ...formatServerIntervals(this.clock.omittedSamples, true),
      ...formatServerIntervals(this.clock.samples),
    ];
    const cpu = this.clock.cpu;
    const results = buildServerResults({
      streams: this.streams.map((stream) => ({
        id: stream.id,
        sends: stream.sends,
        bytes: stream.countedBytes,
      })),
      durationSeconds: this.clock.durationSeconds,
      cpuUserMicros: cpu.userMicros,
      cpuSystemMicros: cpu.systemMicros,
      wallMicros: cpu.wallMicros,
      ...(this.agreed?.params.getServerOutput
        ? { serverOutputText: `${[...intervalLines, summary].join("\n")}\n` }
        : {}),
    });
    this.control.write(Buffer.concat([encodeJson(results), encodeState(State.DISPLAY_RESULTS)]));
    for (const line of intervalLines) this.options.log(`client ${this.client}: ${line}`);
    this.options.log(summary);
    const doneTimer = this.watchdogs.arm(
      this.options.timeouts.doneMs,
      () => new TestInterrupted("no IPERF_DONE"),
    );
    try {
      await this.reader.readState(); // IPERF_DONE (16); anything else ends the test just the same
    } catch {
      // the results are out; a client that closes without IPERF_DONE changes nothing
    }
    this.watchdogs.disarm(doneTimer);
  }

  private summary(): string {
    const params = this.agreed?.params as TestParams;
    return formatTestSummary({
      client: this.client,
      reverse: params.reverse,
      bidirectional: params.bidirectional,
      parallel: params.parallel,
      seconds: this.clock.durationSeconds,
      streams: this.streams.map((stream) => ({
        id: stream.id,
        sends: stream.sends,
        bytes: stream.countedBytes,
        broken: stream.error !== undefined,
      })),
    });
  }

  /** Blocks handed to the sockets so far over all sending streams (for the idle watch). */
  private sentBytes(): number {
    return this.agreed?.budget.bytesSent ?? 0;
  }

  private expectedStreams(): number {
    const params = this.agreed?.params;
    if (!params) return 0;
    return params.bidirectional ? params.parallel * 2 : params.parallel;
  }

  private unexpectedState(state: number, when: string): Error {
    if (state === State.CLIENT_TERMINATE) return new TestInterrupted(`the client terminated ${when}`);
    return new ServerFailure(IperfErrno.IEMESSAGE, `unexpected state byte ${state} ${when}`);
  }

  private interrupt(error: Error): void {
    this.interrupted ??= error;
    this.streamsConnecting?.failed(error);
    this.reader.close(error);
  }

  private fail(error: unknown): void {
    const cause = this.interrupted ?? error;
    const message = cause instanceof Error ? cause.message : String(cause);
    const where = `client ${this.client}`;
    if (cause instanceof ServerFailure) {
      this.options.log(`${where}: refused: ${message} (SERVER_ERROR ${cause.code})`);
      if (!this.control.destroyed) this.control.write(encodeServerError(cause.code, cause.errno));
      return;
    }
    if (cause instanceof TestInterrupted) {
      this.options.log(`${where}: ${message}`);
      return;
    }
    this.options.log(`${where}: test ended: ${message}`);
  }
}
